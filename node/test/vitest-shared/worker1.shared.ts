// One of four files run at once by four vitest workers on one shared server (test/vitest-shared/shared.config.mjs).
import { sharedServerTests } from './tests.js';

sharedServerTests(1);
