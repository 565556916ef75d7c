// Type-level use of cuecard/browser under tsc --strict.
import { load } from 'cuecard/browser';

export async function typedBrowserUse(bytes: Uint8Array): Promise<string> {
  const cuecard = await load(bytes);
  const mock = cuecard.MockModel.thatResponds('typed');
  const model = cuecard.ai.cuecardModel(mock);
  const backend = new cuecard.cogitator.MockLLMBackend();
  // @ts-expect-error the API on wasm is the package's: no invented members
  cuecard.NoSuchExport();
  return mock.chatSync('x').message.text + model.modelId + backend.provider;
}
