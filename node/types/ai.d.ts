// `cuecard/ai`: a LanguageModelV4 of the AI SDK (`ai` 7, `@ai-sdk/provider` 4) answered by a MockModel.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type { MockModel } from './index';

export interface CuecardModelOptions {
  /** The model id the AI SDK reports and the journal's requests carry (default `cuecard-mock`). */
  modelId?: string;
  /** The provider id (default `cuecard`). */
  provider?: string;
  /** URL patterns by media type the model takes as they are (default none: the AI SDK downloads them). */
  supportedUrls?: Record<string, RegExp[]>;
}

/** A LanguageModelV4 answered by a MockModel: `generateText({ model: cuecardModel(mock), ... })`.
 * `providerOptions: { cuecard: { operation } }` sets the request's operation (the routing key). */
export declare class CuecardLanguageModel implements LanguageModelV4 {
  constructor(mock: MockModel, options?: CuecardModelOptions);
  readonly specificationVersion: 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]>;
  /** The mock that answers. */
  readonly mock: MockModel;
  doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult>;
  doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult>;
}

/** A LanguageModelV4 answered by `mock`. */
export declare function cuecardModel(mock: MockModel, options?: CuecardModelOptions): CuecardLanguageModel;

/** The same model as a LanguageModelV3 (`ai` 6, `@ai-sdk/provider` 3). */
export declare class CuecardLanguageModelV3 implements LanguageModelV3 {
  constructor(mock: MockModel, options?: CuecardModelOptions);
  readonly specificationVersion: 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]>;
  /** The mock that answers. */
  readonly mock: MockModel;
  doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult>;
  doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult>;
}

/** A LanguageModelV3 answered by `mock`. */
export declare function cuecardModelV3(mock: MockModel, options?: CuecardModelOptions): CuecardLanguageModelV3;
