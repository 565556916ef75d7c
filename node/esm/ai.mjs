// The ESM entry of `cuecard/ai`: the same objects as the CommonJS entry.
import ai from '../lib/ai.js';

export const { CuecardLanguageModel, CuecardLanguageModelV3, cuecardModel, cuecardModelV3 } = ai;
export default ai;
