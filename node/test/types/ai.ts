// Type-level use of cuecard/ai under tsc --strict: the model is a LanguageModelV4 the ai package accepts.
import type { LanguageModelV3, LanguageModelV4 } from '@ai-sdk/provider';
import { generateText, streamText } from 'ai';
import { MockModel } from 'cuecard';
import { cuecardModel, cuecardModelV3, CuecardLanguageModel } from 'cuecard/ai';

export async function typedAiUse(): Promise<string> {
  const mock = MockModel.thatResponds('typed');
  const model: LanguageModelV4 = cuecardModel(mock, { modelId: 'gpt-test' });
  const v3: LanguageModelV3 = cuecardModelV3(mock);
  await generateText({ model: v3, prompt: 'v3' });
  const direct = new CuecardLanguageModel(mock);
  const id: string = direct.modelId;
  const same: MockModel = direct.mock;
  const { text } = await generateText({ model, prompt: 'hi' });
  const streamed = streamText({ model: direct, prompt: 'hi' });
  // @ts-expect-error the options are typed
  cuecardModel(mock, { modelId: 7 });
  return text + id + String(same.requestCount) + (await streamed.text);
}
