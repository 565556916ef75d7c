/* Per-call cost of the C ABI (JSON in, JSON out). Build against a release library:
 *   cargo build --release -p cuecard-ffi
 *   cc -O2 -Iinclude ffi/bench/bench_calls.c -Ltarget/release -lcuecard_ffi -o bench_calls
 *   LD_LIBRARY_PATH=target/release ./bench_calls */
#define _POSIX_C_SOURCE 200809L
#include "cuecard.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The best of 5 rounds of `n` calls, in microseconds per call (noise only ever adds time), and as a `figure`
 * line for bench/figures.py. */
#define BENCH(id, label, n, call)                                                                              \
    do {                                                                                                       \
        double best = 1e18;                                                                                    \
        for (int round = 0; round < 5; round++) {                                                              \
            double start = now_us();                                                                           \
            for (int i = 0; i < (n); i++) { call; }                                                            \
            double per = (now_us() - start) / (n);                                                             \
            if (per < best) best = per;                                                                        \
        }                                                                                                      \
        printf("%-42s %8.2f us/call\n", label, best);                                                          \
        printf("figure c/%s %.4g us\n", id, best);                                                             \
    } while (0)

int main(void) {
    cuecard_mock *mock = NULL;
    const char *settings = "{\"journal_limit\": 16}";
    cuecard_mock_new(settings, strlen(settings), &mock, NULL);
    const char *step = "\"The weather in Paris is sunny, 22 degrees.\"";
    cuecard_mock_then_responds(mock, step, strlen(step), NULL);
    cuecard_mock_then_repeats(mock, NULL);
    const char *request = "{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"What is the weather in Paris today?\"}]}";
    size_t request_len = strlen(request);
    char *out = NULL;
    BENCH("chat", "cuecard_mock_chat (journal limit 16)", 100000, {
        cuecard_mock_chat(mock, request, request_len, &out, NULL, NULL);
        cuecard_string_free(out);
    });
    BENCH("stream-13", "cuecard_mock_stream (13 events)", 50000, {
        cuecard_mock_stream(mock, request, request_len, &out, NULL);
        cuecard_string_free(out);
    });
    const char *http_body = request;
    BENCH("handle-http", "cuecard_mock_handle_http (chat completions)", 50000, {
        cuecard_mock_handle_http(mock, "POST", 4, "/v1/chat/completions", 20, NULL, 0, (const uint8_t *)http_body,
                                 request_len, &out, NULL);
        cuecard_string_free(out);
    });
    const char *text = "Hello, world! Order 12345";
    BENCH("tokenize-25", "cuecard_tokenize (25 chars)", 200000, {
        cuecard_tokenize(text, strlen(text), &out, NULL);
        cuecard_string_free(out);
    });
    size_t count = 0;
    BENCH("count-tokens-25", "cuecard_count_tokens (25 chars)", 200000, cuecard_count_tokens(text, strlen(text), &count, NULL));
    cuecard_mock_free(mock);
    return 0;
}
