import cjs from '../lib/jest.js';

export const { matchers, useCuecardMock, useCuecardRecording, useCuecardShared } = cjs;
