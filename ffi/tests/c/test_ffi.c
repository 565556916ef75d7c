/* The C ABI as a C program uses it: every shared vector file (tests/vectors/), a computed answer and a computed
 * tool in C, the server answering a real HTTP request, and misuse (NULL everywhere, invalid UTF-8, malformed JSON,
 * handles of the wrong kind, a stopped server, callbacks that answer garbage or nothing). Run it under valgrind
 * and under ASan + UBSan; it prints "N passed, N failed" and exits non-zero on any failure.
 *
 *   test_ffi REPO_ROOT        (reads the JSON files in REPO_ROOT/tests/vectors)
 *
 * JSON is parsed with cJSON (Debian's libcjson-dev) to compare structures. */
#define _POSIX_C_SOURCE 200809L
#define CUECARD_TESTING 1
#include "cuecard.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int passed = 0, failed = 0;

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                        \
        if (cond) {                                                                                             \
            passed++;                                                                                           \
        } else {                                                                                                \
            failed++;                                                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                \
            fprintf(stderr, __VA_ARGS__);                                                                       \
            fprintf(stderr, "\n");                                                                              \
        }                                                                                                       \
    } while (0)

/* ---- helpers -------------------------------------------------------------------------------------------- */

static char *read_file(const char *root, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/vectors/%s", root, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    text[size] = '\0';
    fclose(f);
    return text;
}

static cJSON *load_vectors(const char *root, const char *name, cJSON **document) {
    char *text = read_file(root, name);
    *document = cJSON_Parse(text);
    free(text);
    if (!*document) {
        fprintf(stderr, "%s is not JSON\n", name);
        exit(2);
    }
    return cJSON_GetObjectItemCaseSensitive(*document, "vectors");
}

/* A JSON text of a cJSON item; free with cJSON_free. */
static char *json_of(const cJSON *item) { return cJSON_PrintUnformatted(item); }

/* Parses a string the library returned, and frees it. */
static cJSON *take_json(char *text) {
    cJSON *parsed = cJSON_Parse(text);
    cuecard_string_free(text);
    return parsed;
}

/* Frees an error object and clears the variable, so it can be reused. */
static void drop_error(cuecard_error **error) {
    cuecard_error_free(*error);
    *error = NULL;
}

static const cJSON *get(const cJSON *object, const char *key) { return cJSON_GetObjectItemCaseSensitive(object, key); }

static int same_json(const cJSON *a, const cJSON *b) { return a && b && cJSON_Compare(a, b, 1); }

/* A message for a failed comparison (freed by the caller). */
static char *describe(const cJSON *actual, const cJSON *expected) {
    char *a = actual ? json_of(actual) : NULL, *e = expected ? json_of(expected) : NULL;
    size_t size = (a ? strlen(a) : 4) + (e ? strlen(e) : 4) + 64;
    char *out = malloc(size);
    snprintf(out, size, "\n  actual   %.600s\n  expected %.600s", a ? a : "NULL", e ? e : "NULL");
    cJSON_free(a);
    cJSON_free(e);
    return out;
}

static cuecard_mock *mock_from(const cJSON *scenario) {
    char *text = json_of(scenario);
    cuecard_mock *mock = NULL;
    cuecard_error *err = NULL;
    cuecard_status status = cuecard_mock_from_scenario(text, strlen(text), &mock, &err);
    if (status != CUECARD_STATUS_OK) {
        fprintf(stderr, "scenario refused: %s\n", cuecard_error_message(err));
        exit(2);
    }
    cJSON_free(text);
    return mock;
}

/* ---- the shared vectors ----------------------------------------------------------------------------------- */

static void tokenizer_vectors(const char *root, const char *name, int minimum) {
    cJSON *document;
    const cJSON *vectors = load_vectors(root, name, &document), *v;
    int ran = 0, ok = 0;
    cJSON_ArrayForEach(v, vectors) {
        const char *input = get(v, "input")->valuestring;
        char *tokens = NULL;
        size_t count = 0;
        cuecard_status s1 = cuecard_tokenize(input, strlen(input), &tokens, NULL);
        cuecard_status s2 = cuecard_count_tokens(input, strlen(input), &count, NULL);
        cJSON *actual = s1 == CUECARD_STATUS_OK ? take_json(tokens) : NULL;
        const cJSON *expected = get(v, "expected");
        if (s2 == CUECARD_STATUS_OK && same_json(actual, expected) && (int)count == cJSON_GetArraySize(expected)) {
            ok++;
        } else {
            char *why = describe(actual, expected);
            CHECK(0, "%s %s%s", name, get(v, "id")->valuestring, why);
            free(why);
        }
        cJSON_Delete(actual);
        ran++;
    }
    CHECK(ok == ran && ran == cJSON_GetArraySize(vectors) && ran >= minimum, "%s: %d of %d vectors", name, ok, ran);
    cJSON_Delete(document);
}

/* {"provider_error": ...} or {"error": {"code"}} for a failed call. */
static cJSON *failure_value(cuecard_status status, cuecard_error *err) {
    cJSON *out = cJSON_CreateObject();
    if (status == CUECARD_STATUS_PROVIDER_ERROR) {
        cJSON *whole = cJSON_Parse(cuecard_error_json(err));
        cJSON_AddItemToObject(out, "provider_error", cJSON_DetachItemFromObjectCaseSensitive(whole, "provider_error"));
        cJSON_Delete(whole);
    } else {
        cJSON *error = cJSON_AddObjectToObject(out, "error");
        cJSON_AddStringToObject(error, "code", cuecard_error_code(err));
    }
    cuecard_error_free(err);
    return out;
}

static cJSON *run_scenario(const cJSON *input) {
    cuecard_mock *mock = mock_from(get(input, "scenario"));
    cJSON *result = cJSON_CreateObject(), *calls = cJSON_AddArrayToObject(result, "calls");
    const cJSON *call;
    cJSON_ArrayForEach(call, get(input, "calls")) {
        char *request = json_of(get(call, "request")), *out = NULL;
        cuecard_error *err = NULL;
        int stream = strcmp(get(call, "mode")->valuestring, "stream") == 0;
        cuecard_status status = stream ? cuecard_mock_stream(mock, request, strlen(request), &out, &err)
                                       : cuecard_mock_chat(mock, request, strlen(request), &out, NULL, &err);
        cJSON *item;
        if (status == CUECARD_STATUS_OK) {
            item = cJSON_CreateObject();
            cJSON_AddItemToObject(item, stream ? "events" : "response", take_json(out));
        } else {
            item = failure_value(status, err);
        }
        cJSON_AddItemToArray(calls, item);
        cJSON_free(request);
    }
    char *journal_text = NULL;
    cuecard_mock_journal(mock, &journal_text, NULL);
    cJSON *journal = take_json(journal_text), *rows = cJSON_AddArrayToObject(result, "journal"), *entry;
    cJSON_ArrayForEach(entry, get(journal, "entries")) {
        cJSON *row = cJSON_Duplicate(entry, 1);
        const char *dropped[] = {"request", "raw", "response", "error"};
        for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++) cJSON_DeleteItemFromObjectCaseSensitive(row, dropped[i]);
        cJSON_AddItemToArray(rows, row);
    }
    cJSON_AddNumberToObject(result, "unused_steps", cJSON_GetArraySize(get(journal, "unused_steps")));
    cJSON_Delete(journal);
    cuecard_mock_free(mock);
    return result;
}

static void scenario_vectors(const char *root) {
    cJSON *document;
    const cJSON *vectors = load_vectors(root, "scenarios.json", &document), *v;
    int ran = 0, ok = 0;
    cJSON_ArrayForEach(v, vectors) {
        cJSON *actual = run_scenario(get(v, "input"));
        if (same_json(actual, get(v, "expected"))) {
            ok++;
        } else {
            char *why = describe(actual, get(v, "expected"));
            CHECK(0, "scenarios.json %s%s", get(v, "id")->valuestring, why);
            free(why);
        }
        cJSON_Delete(actual);
        ran++;
    }
    CHECK(ok == ran && ran == cJSON_GetArraySize(vectors) && ran >= 20, "scenarios.json: %d of %d", ok, ran);
    cJSON_Delete(document);
}

static void error_vectors(const char *root) {
    cJSON *document;
    const cJSON *vectors = load_vectors(root, "errors.json", &document), *v;
    int ran = 0, kinds = 0;
    cJSON_ArrayForEach(v, vectors) {
        const cJSON *input = get(v, "input");
        const char *id = get(v, "id")->valuestring;
        if (get(input, "kind_number")) {
            int number = get(input, "kind_number")->valueint;
            const cJSON *expected = get(v, "expected");
            CHECK(strcmp(cuecard_status_code((uint32_t)number), get(expected, "code")->valuestring) == 0, "%s code", id);
            CHECK(strcmp(cuecard_status_description((uint32_t)number), get(expected, "description")->valuestring) == 0,
                  "%s description", id);
            cuecard_error *err = NULL;
            CHECK(cuecard_testing_error((uint32_t)number, &err) == (cuecard_status)number, "%s status", id);
            CHECK(err && strcmp(cuecard_error_code(err), get(expected, "code")->valuestring) == 0, "%s error code", id);
            drop_error(&err);
            kinds++;
        } else {
            cuecard_error *err = NULL;
            cuecard_status status;
            const cJSON *text = get(input, "scenario_json") ? get(input, "scenario_json") : get(input, "scenario_yaml");
            cuecard_mock *mock = NULL;
            if (text) {
                status = cuecard_mock_from_scenario(text->valuestring, strlen(text->valuestring), &mock, &err);
            } else {
                const char *request = get(input, "request_json")->valuestring;
                char *out = NULL;
                cuecard_mock_new(NULL, 0, &mock, NULL);
                cuecard_mock_then_responds(mock, "\"x\"", 3, NULL);
                status = cuecard_mock_chat(mock, request, strlen(request), &out, NULL, &err);
                cuecard_string_free(out);
            }
            const cJSON *expected = get(v, "error");
            CHECK(status != CUECARD_STATUS_OK && strcmp(cuecard_error_code(err), get(expected, "code")->valuestring) == 0,
                  "%s: %s", id, err ? cuecard_error_message(err) : "no error");
            if (get(expected, "message")) {
                CHECK(strcmp(cuecard_error_message(err), get(expected, "message")->valuestring) == 0, "%s message", id);
            }
            if (get(expected, "paths") && err) {
                cJSON *whole = cJSON_Parse(cuecard_error_json(err)), *paths = cJSON_CreateArray(), *issue;
                cJSON_ArrayForEach(issue, get(whole, "issues")) cJSON_AddItemToArray(paths, cJSON_CreateString(get(issue, "path")->valuestring));
                CHECK(same_json(paths, get(expected, "paths")), "%s paths", id);
                cJSON_Delete(paths);
                cJSON_Delete(whole);
            }
            drop_error(&err);
            cuecard_mock_free(mock);
        }
        ran++;
    }
    CHECK(ran == cJSON_GetArraySize(vectors) && kinds == 17, "errors.json: %d vectors, %d kinds", ran, kinds);
    cJSON_Delete(document);
}

static void verify_vectors(const char *root) {
    cJSON *document;
    const cJSON *vectors = load_vectors(root, "verify.json", &document), *v;
    int checks = 0, expected_checks = 0;
    cJSON_ArrayForEach(v, vectors) {
        const cJSON *input = get(v, "input"), *call, *record, *event;
        cuecard_mock *mock = mock_from(get(input, "scenario"));
        cJSON_ArrayForEach(call, get(input, "calls")) {
            if (strcmp(get(call, "mode")->valuestring, "http") == 0) {
                /* A wire request (what the contract checks read). */
                const cJSON *http = get(call, "request");
                const char *method = get(http, "method")->valuestring, *path = get(http, "path")->valuestring;
                const char *body = get(http, "body") ? get(http, "body")->valuestring : "";
                char *headers = get(http, "headers") ? json_of(get(http, "headers")) : NULL, *reply = NULL;
                CHECK(cuecard_mock_handle_http(mock, method, strlen(method), path, strlen(path), headers,
                                               headers ? strlen(headers) : 0, (const uint8_t *)body, strlen(body),
                                               &reply, NULL) == CUECARD_STATUS_OK,
                      "verify http call");
                cuecard_string_free(reply);
                cJSON_free(headers);
                continue;
            }
            char *request = json_of(get(call, "request")), *out = NULL;
            cuecard_status status = strcmp(get(call, "mode")->valuestring, "stream") == 0
                                        ? cuecard_mock_stream(mock, request, strlen(request), &out, NULL)
                                        : cuecard_mock_chat(mock, request, strlen(request), &out, NULL, NULL);
            if (status == CUECARD_STATUS_OK) cuecard_string_free(out);
            cJSON_free(request);
        }
        cuecard_observer *observer = NULL;
        if (get(input, "observer")) {
            cuecard_observer_new(&observer, NULL);
            cJSON_ArrayForEach(record, get(input, "observer")) {
                char *context = json_of(get(record, "context"));
                size_t index = 0;
                CHECK(cuecard_observer_start_call(observer, context, strlen(context), &index, NULL) == CUECARD_STATUS_OK, "start_call");
                cJSON_ArrayForEach(event, get(record, "events")) {
                    char *text = json_of(event);
                    CHECK(cuecard_observer_report(observer, index, text, strlen(text), NULL) == CUECARD_STATUS_OK, "report %s", text);
                    cJSON_free(text);
                }
                cJSON_free(context);
            }
        }
        const cJSON *check, *expected = get(v, "expected");
        int i = 0;
        cJSON_ArrayForEach(check, get(input, "checks")) {
            char *text = json_of(check);
            cuecard_error *err = NULL;
            cuecard_status status = cuecard_mock_check(mock, observer, text, strlen(text), &err);
            const cJSON *want = cJSON_GetArrayItem(expected, i++);
            if (get(want, "pass")) {
                CHECK(status == CUECARD_STATUS_OK, "verify.json %s %s passes", get(v, "id")->valuestring, text);
            } else {
                CHECK(status == CUECARD_STATUS_ASSERTION_FAILED && strcmp(cuecard_error_message(err), get(want, "message")->valuestring) == 0,
                      "verify.json %s %s: %s", get(v, "id")->valuestring, text, err ? cuecard_error_message(err) : "passed");
            }
            drop_error(&err);
            cJSON_free(text);
            checks++;
        }
        expected_checks += cJSON_GetArraySize(get(input, "checks"));
        cuecard_observer_free(observer);
        cuecard_mock_free(mock);
    }
    CHECK(checks == expected_checks && cJSON_GetArraySize(vectors) >= 7, "verify.json: ran %d of %d checks", checks, expected_checks);
    cJSON_Delete(document);
}

static size_t base64_decode(const char *in, unsigned char *out) {
    static const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    unsigned int bits = 0;
    int count = 0;
    for (; *in && *in != '='; in++) {
        const char *p = strchr(alphabet, *in);
        if (!p) continue;
        bits = (bits << 6) | (unsigned int)(p - alphabet);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out[n++] = (unsigned char)((bits >> count) & 0xff);
        }
    }
    return n;
}

static void wire_vectors(const char *root) {
    cJSON *document;
    const cJSON *vectors = load_vectors(root, "wire.json", &document), *v;
    int ran = 0, ok = 0, expected_requests = 0;
    cJSON_ArrayForEach(v, vectors) {
        const cJSON *input = get(v, "input"), *request;
        cuecard_mock *mock = mock_from(get(input, "scenario"));
        int i = 0;
        cJSON_ArrayForEach(request, get(input, "requests")) {
            const char *method = get(request, "method")->valuestring, *path = get(request, "path")->valuestring;
            char *headers = get(request, "headers") ? json_of(get(request, "headers")) : NULL;
            unsigned char body[65536];
            size_t body_len = 0;
            if (get(request, "body")) {
                body_len = strlen(get(request, "body")->valuestring);
                memcpy(body, get(request, "body")->valuestring, body_len);
            } else if (get(request, "body_base64")) {
                body_len = base64_decode(get(request, "body_base64")->valuestring, body);
            }
            char *out = NULL;
            cuecard_status status = cuecard_mock_handle_http(mock, method, strlen(method), path, strlen(path), headers,
                                                             headers ? strlen(headers) : 0, body, body_len, &out, NULL);
            cJSON *actual = status == CUECARD_STATUS_OK ? take_json(out) : NULL;
            const cJSON *expected = cJSON_GetArrayItem(get(v, "expected"), i++);
            if (same_json(actual, expected)) {
                ok++;
            } else {
                char *why = describe(actual, expected);
                CHECK(0, "wire.json %s %s %s%s", get(v, "id")->valuestring, method, path, why);
                free(why);
            }
            cJSON_Delete(actual);
            cJSON_free(headers);
            ran++;
        }
        expected_requests += cJSON_GetArraySize(get(input, "requests"));
        cuecard_mock_free(mock);
    }
    CHECK(ok == ran && ran == expected_requests && cJSON_GetArraySize(vectors) >= 18, "wire.json: %d of %d", ok, ran);
    cJSON_Delete(document);
}

/* ---- callbacks from C ------------------------------------------------------------------------------------- */

static int destroyed = 0;
static void count_destroy(void *user_data) { destroyed += *(int *)user_data; }

/* Answers "echo: <the request's last message text>" as a step object, fails on "boom", or answers garbage. */
static void echo_answer(void *user_data, const char *request_json, size_t request_len, cuecard_answer *answer) {
    (void)user_data;
    cJSON *request = cJSON_ParseWithLength(request_json, request_len);
    const cJSON *messages = get(request, "messages");
    const cJSON *last = cJSON_GetArrayItem(messages, cJSON_GetArraySize(messages) - 1);
    const char *text = get(cJSON_GetArrayItem(get(last, "content"), 0), "text")->valuestring;
    if (strcmp(text, "boom") == 0) {
        cuecard_answer_fail(answer, "the C callback failed", strlen("the C callback failed"), NULL);
    } else if (strcmp(text, "garbage") == 0) {
        cuecard_answer_set_json(answer, "{not json", 9, NULL);
    } else if (strcmp(text, "nothing") != 0) {
        cJSON *step = cJSON_CreateObject();
        char echo[256];
        snprintf(echo, sizeof echo, "echo: %s", text);
        cJSON_AddStringToObject(step, "text", echo);
        char *json = json_of(step);
        cuecard_answer_set_json(answer, json, strlen(json), NULL);
        cJSON_free(json);
        cJSON_Delete(step);
    }
    cJSON_Delete(request);
}

static void computed_answers(void) {
    cuecard_mock *mock = NULL;
    cuecard_error *err = NULL;
    static int weight = 1;
    cuecard_mock_new("{\"instant\": true}", 17, &mock, NULL);
    CHECK(cuecard_mock_then_computes(mock, echo_answer, &weight, count_destroy, NULL) == CUECARD_STATUS_OK, "then_computes");
    CHECK(cuecard_mock_then_repeats(mock, NULL) == CUECARD_STATUS_OK, "then_repeats");
    char *out = NULL;
    CHECK(cuecard_mock_chat(mock, "\"hello\"", 7, &out, NULL, &err) == CUECARD_STATUS_OK, "computed chat");
    cJSON *response = take_json(out);
    CHECK(strcmp(get(get(response, "message"), "text")->valuestring, "echo: hello") == 0, "echo answer");
    cJSON_Delete(response);

    CHECK(cuecard_mock_chat(mock, "\"boom\"", 6, &out, NULL, &err) == CUECARD_STATUS_HOST_ERROR, "host error");
    CHECK(err && strcmp(cuecard_error_message(err), "the C callback failed") == 0, "host error message");
    drop_error(&err);
    CHECK(cuecard_mock_chat(mock, "\"garbage\"", 9, &out, NULL, &err) == CUECARD_STATUS_CALLBACK_FAILED, "garbage answer");
    CHECK(err && strstr(cuecard_error_message(err), "not valid JSON"), "garbage answer message");
    drop_error(&err);
    CHECK(cuecard_mock_chat(mock, "\"nothing\"", 9, &out, NULL, &err) == CUECARD_STATUS_CALLBACK_FAILED, "no answer");
    CHECK(err && strstr(cuecard_error_message(err), "gave no answer"), "no answer message");
    drop_error(&err);
    CHECK(destroyed == 0, "user_data alive while the mock is");
    cuecard_mock_free(mock);
    CHECK(destroyed == 1, "destroy called once when the mock is freed");

    CHECK(cuecard_mock_new(NULL, 0, &mock, NULL) == CUECARD_STATUS_OK, "mock");
    CHECK(cuecard_mock_then_computes(mock, NULL, &weight, count_destroy, &err) == CUECARD_STATUS_INVALID_ARGUMENT, "NULL function");
    CHECK(destroyed == 2, "destroy called for a refused callback");
    drop_error(&err);
    cuecard_mock_free(mock);
}

/* A tool computed in C: doubles "n". */
static void double_tool(void *user_data, const char *arguments_json, size_t len, cuecard_answer *answer) {
    (void)user_data;
    cJSON *arguments = cJSON_ParseWithLength(arguments_json, len);
    char result[64];
    snprintf(result, sizeof result, "{\"n\": %d}", 2 * get(arguments, "n")->valueint);
    cuecard_answer_set_json(answer, result, strlen(result), NULL);
    cJSON_Delete(arguments);
}

static void tools_memory_and_observer(void) {
    cuecard_tool *tool = NULL;
    cuecard_error *err = NULL;
    const char *options = "{\"name\": \"double\", \"description\": \"Doubles n\"}";
    CHECK(cuecard_tool_new(options, strlen(options), double_tool, NULL, NULL, &tool, NULL) == CUECARD_STATUS_OK, "tool");
    char *out = NULL;
    uint64_t delay = 99;
    CHECK(cuecard_tool_invoke(tool, "{\"n\": 21}", 9, &out, &delay, NULL) == CUECARD_STATUS_OK && delay == 0, "invoke");
    CHECK(out && strcmp(out, "{\"n\":42}") == 0, "tool result %s", out ? out : "NULL");
    cuecard_string_free(out);
    cuecard_tool_free(tool);

    CHECK(cuecard_tool_fixture("failing", 7, "disk full", 9, 0, &tool, NULL) == CUECARD_STATUS_OK, "fixture");
    CHECK(cuecard_tool_invoke(tool, "{}", 2, &out, NULL, &err) == CUECARD_STATUS_TOOL_FAILED, "failing tool");
    CHECK(err && strcmp(cuecard_error_message(err), "disk full") == 0, "failing tool message");
    drop_error(&err);
    CHECK(cuecard_tool_invocations(tool, &out, NULL) == CUECARD_STATUS_OK && strstr(out, "\"error\":\"disk full\""), "invocations");
    cuecard_string_free(out);
    cuecard_tool_free(tool);
    CHECK(cuecard_tool_fixture("clock", 5, NULL, 0, 0, &tool, &err) == CUECARD_STATUS_NOT_FOUND, "unknown fixture");
    drop_error(&err);

    cuecard_memory *memory = NULL;
    cuecard_memory_new(&memory, NULL);
    const char *create = "{\"agent_id\": \"a1\"}";
    CHECK(cuecard_memory_call(memory, "createThread", 12, create, strlen(create), &out, NULL) == CUECARD_STATUS_OK &&
              strstr(out, "\"id\":\"thread_1\""), "create_thread");
    cuecard_string_free(out);
    CHECK(cuecard_memory_call(memory, "update_thread", 13, "{\"thread_id\": \"x\"}", 18, &out, &err) == CUECARD_STATUS_NOT_FOUND,
          "update unknown thread");
    drop_error(&err);
    CHECK(cuecard_memory_call(memory, "calls", 5, NULL, 0, &out, NULL) == CUECARD_STATUS_OK && strstr(out, "\"create_thread\""), "call log");
    cuecard_string_free(out);
    cuecard_memory_free(memory);

    cuecard_observer *observer = NULL;
    cuecard_observer_new(&observer, NULL);
    CHECK(cuecard_observer_report(observer, 7, "{\"event\": \"call_cancelled\"}", 27, &err) == CUECARD_STATUS_INVALID_ARGUMENT,
          "report to an unknown record");
    drop_error(&err);
    cuecard_observer_free(observer);
}

/* ---- the server ------------------------------------------------------------------------------------------ */

/* One POST /v1/chat/completions to 127.0.0.1:port over HTTP/1.1; the whole reply, NUL-terminated, in `reply`. */
static void http_post(uint16_t port, const char *body, char *reply, size_t capacity) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&address, sizeof address) == 0, "connect to %u", port);
    char request[1024];
    int n = snprintf(request, sizeof request,
                     "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer sk-live-c0123456789abcdefgh\r\ncontent-length: %zu\r\n\r\n%s",
                     strlen(body), body);
    CHECK(write(fd, request, (size_t)n) == n, "send");
    size_t got = 0;
    ssize_t r;
    while (got < capacity - 1 && (r = read(fd, reply + got, capacity - 1 - got)) > 0) got += (size_t)r;
    reply[got] = '\0';
    close(fd);
}

static void server_answers_http(void) {
    cuecard_mock *mock = NULL;
    cuecard_server *server = NULL;
    cuecard_error *err = NULL;
    cuecard_mock_new(NULL, 0, &mock, NULL);
    cuecard_mock_then_responds(mock, "\"Hello from C!\"", 15, NULL);
    CHECK(cuecard_server_start(mock, "{\"instant\": true}", 17, &server, NULL) == CUECARD_STATUS_OK, "server start");
    cuecard_mock_free(mock); /* the server keeps the mock alive */
    uint16_t port = 0;
    CHECK(cuecard_server_port(server, &port, NULL) == CUECARD_STATUS_OK && port > 0, "port");
    char *url = NULL;
    CHECK(cuecard_server_openai_base_url(server, &url, NULL) == CUECARD_STATUS_OK && strstr(url, "http://127.0.0.1:"), "url");
    cuecard_string_free(url);

    const char *body = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    char reply[8192];
    http_post(port, body, reply, sizeof reply);
    CHECK(strstr(reply, "HTTP/1.1 200") && strstr(reply, "\"content\":\"Hello from C!\""), "reply %.200s", reply);

    CHECK(cuecard_server_stop(server, NULL) == CUECARD_STATUS_OK, "stop");
    CHECK(cuecard_server_stop(server, NULL) == CUECARD_STATUS_OK, "stop twice");
    CHECK(cuecard_server_port(server, &port, &err) == CUECARD_STATUS_INVALID_STATE, "port after stop");
    CHECK(err && strcmp(cuecard_error_message(err), "the server is stopped") == 0, "stopped message");
    drop_error(&err);
    cuecard_server_free(server);
}

/* ---- recordings ------------------------------------------------------------------------------------------ */

/* The port of a base URL `http://127.0.0.1:PORT`. */
static uint16_t port_of(const char *url) {
    unsigned port = 0;
    CHECK(sscanf(url, "http://127.0.0.1:%u", &port) == 1, "port of %s", url);
    return (uint16_t)port;
}

/* Record once through a proxy in front of a cuecard server, then replay without it: the same body, a miss with the
 * nearest recording named, no key in the file. */
static void recording_proxy_records_and_replays(void) {
    cuecard_mock *mock = NULL;
    cuecard_server *provider = NULL;
    cuecard_recording_proxy *proxy = NULL;
    cuecard_error *err = NULL;
    cuecard_mock_new(NULL, 0, &mock, NULL);
    const char *answer = "\"Recorded in C.\"";
    CHECK(cuecard_mock_then_responds(mock, answer, strlen(answer), NULL) == CUECARD_STATUS_OK, "script");
    CHECK(cuecard_server_start(mock, "{\"instant\": true}", 17, &provider, NULL) == CUECARD_STATUS_OK, "provider");
    cuecard_mock_free(mock);
    char *provider_url = NULL;
    cuecard_server_anthropic_base_url(provider, &provider_url, NULL);
    char path[256], settings[512], reply[8192], replayed[8192];
    snprintf(path, sizeof path, "/tmp/cuecard-c-recording-%d.yaml", (int)getpid());
    unlink(path);
    snprintf(settings, sizeof settings, "{\"mode\": \"once\", \"upstream\": [\"%s\"], \"allow_in_ci\": true}", provider_url);
    cuecard_string_free(provider_url);
    CHECK(cuecard_recording_proxy_start(path, strlen(path), settings, strlen(settings), NULL, 0, &proxy, &err) == CUECARD_STATUS_OK,
          "proxy start: %s", err ? cuecard_error_message(err) : "");
    drop_error(&err);
    char *url = NULL;
    CHECK(cuecard_recording_proxy_base_url(proxy, &url, NULL) == CUECARD_STATUS_OK, "proxy url");
    const char *body = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}]}";
    http_post(port_of(url), body, reply, sizeof reply);
    cuecard_string_free(url);
    size_t recorded = 0;
    CHECK(cuecard_recording_proxy_recorded(proxy, &recorded, NULL) == CUECARD_STATUS_OK && recorded == 1, "recorded %zu", recorded);
    cuecard_recording_proxy_free(proxy);
    cuecard_server_free(provider);
    CHECK(strstr(reply, "HTTP/1.1 200") && strstr(reply, "Recorded in C."), "recorded reply %.200s", reply);

    proxy = NULL;
    CHECK(cuecard_recording_proxy_start(path, strlen(path), NULL, 0, NULL, 0, &proxy, NULL) == CUECARD_STATUS_OK, "replay start");
    cuecard_recording_proxy_base_url(proxy, &url, NULL);
    http_post(port_of(url), body, replayed, sizeof replayed);
    const char *recorded_body = strstr(reply, "\r\n\r\n"), *replayed_body = strstr(replayed, "\r\n\r\n");
    CHECK(recorded_body && replayed_body && strcmp(recorded_body, replayed_body) == 0, "replayed %.200s", replayed);
    const char *lyon = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Lyon?\"}]}";
    http_post(port_of(url), lyon, replayed, sizeof replayed);
    CHECK(strstr(replayed, "HTTP/1.1 422") && strstr(replayed, "no_recording") && strstr(replayed, "Weather in Paris?"), "miss %.300s", replayed);
    cuecard_string_free(url);
    cuecard_recording_proxy_free(proxy);
    FILE *file = fopen(path, "r");
    char text[16384];
    size_t length = file ? fread(text, 1, sizeof text - 1, file) : 0;
    text[length] = '\0';
    if (file) fclose(file);
    CHECK(length > 0 && strstr(text, "Weather in Paris?") && !strstr(text, "sk-live-c0123456789abcdefgh"), "the file");
    unlink(path);

    /* A missing file in mode none, bad settings, and NULLs are typed errors. */
    proxy = NULL;
    CHECK(cuecard_recording_proxy_start(path, strlen(path), NULL, 0, NULL, 0, &proxy, &err) == CUECARD_STATUS_NOT_FOUND && proxy == NULL, "missing");
    CHECK(err && strstr(cuecard_error_message(err), "record it with mode once"), "missing message");
    drop_error(&err);
    CHECK(cuecard_recording_proxy_start(path, strlen(path), "{\"mode\": 1}", 11, NULL, 0, &proxy, &err) == CUECARD_STATUS_INVALID_ARGUMENT, "bad mode");
    drop_error(&err);
    CHECK(cuecard_recording_proxy_start(NULL, 4, NULL, 0, NULL, 0, &proxy, &err) == CUECARD_STATUS_INVALID_ARGUMENT, "NULL path");
    drop_error(&err);
    CHECK(cuecard_recording_proxy_base_url(NULL, &url, &err) == CUECARD_STATUS_INVALID_ARGUMENT, "NULL proxy");
    drop_error(&err);
    cuecard_recording_proxy_free(NULL);
}

/* ---- misuse ---------------------------------------------------------------------------------------------- */

/* `error` is read after the call has run (an argument `err` would be read before it, in unspecified order). */
static void expect_invalid(cuecard_status status, cuecard_error **error, cuecard_status want, const char *fragment, const char *what) {
    cuecard_error *err = *error;
    CHECK(status == want, "%s: status %u, wanted %u", what, (unsigned)status, (unsigned)want);
    CHECK(err && strstr(cuecard_error_message(err), fragment), "%s: message %s", what, err ? cuecard_error_message(err) : "NULL");
    drop_error(error);
}

static void misuse(void) {
    cuecard_error *err = NULL;
    cuecard_mock *mock = NULL;
    char *out = NULL;
    size_t count = 0;
    cuecard_mock_new(NULL, 0, &mock, NULL);

    /* NULL everywhere a pointer is taken. */
    expect_invalid(cuecard_mock_new(NULL, 0, NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "argument `out_mock` is NULL", "new");
    expect_invalid(cuecard_mock_then_responds(NULL, "\"x\"", 3, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "argument `mock` is NULL", "mock NULL");
    expect_invalid(cuecard_mock_then_responds(mock, NULL, 3, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "argument `step_json` is NULL", "step NULL");
    expect_invalid(cuecard_mock_chat(mock, "\"x\"", 3, NULL, NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`out_response_json` is NULL", "out NULL");
    expect_invalid(cuecard_mock_check(mock, NULL, NULL, 4, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`check_json` is NULL", "check NULL");
    expect_invalid(cuecard_tokenize(NULL, 4, &out, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`text` is NULL", "tokenize NULL");
    expect_invalid(cuecard_server_start(NULL, NULL, 0, NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "is NULL", "server NULL");
    expect_invalid(cuecard_observer_start_call(NULL, "{}", 2, NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "is NULL", "observer NULL");
    expect_invalid(cuecard_tool_invoke(NULL, "{}", 2, &out, NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`tool` is NULL", "tool NULL");
    expect_invalid(cuecard_memory_call(NULL, "connect", 7, NULL, 0, &out, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`memory` is NULL", "memory NULL");
    expect_invalid(cuecard_answer_set_json(NULL, "1", 1, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`answer` is NULL", "answer NULL");
    /* A NULL out-parameter of a constructor makes no handle (valgrind and ASan see a leak if one were made). */
    /* An array where an object belongs is refused, not read field by field (this one would bind every interface). */
    cuecard_server *server = NULL;
    expect_invalid(cuecard_server_start(mock, "[\"0.0.0.0\", 0]", 14, &server, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT,
                   "invalid type: sequence, expected a mapping of fields (an object)", "options as an array");
    CHECK(server == NULL, "no server was started");
    expect_invalid(cuecard_observer_new(NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`out_observer` is NULL", "observer out NULL");
    expect_invalid(cuecard_memory_new(NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "`out_memory` is NULL", "memory out NULL");
    CHECK(cuecard_count_tokens(NULL, 0, &count, NULL) == CUECARD_STATUS_OK && count == 0, "NULL with length 0 is the empty text");
    CHECK(cuecard_mock_then_repeats(mock, NULL) == CUECARD_STATUS_INVALID_STATE, "a NULL err is allowed");
    cuecard_mock_free(NULL);
    cuecard_server_free(NULL);
    cuecard_observer_free(NULL);
    cuecard_tool_free(NULL);
    cuecard_memory_free(NULL);
    cuecard_error_free(NULL);
    cuecard_string_free(NULL);
    CHECK(cuecard_error_message(NULL) == NULL && cuecard_error_status(NULL) == CUECARD_STATUS_OK, "NULL error object");

    /* Invalid UTF-8 and malformed JSON. */
    expect_invalid(cuecard_tokenize("ok \xff", 4, &out, &err), &err, CUECARD_STATUS_INVALID_UTF8, "not valid UTF-8 (byte 3)", "tokenize bytes");
    expect_invalid(cuecard_mock_then_responds(mock, "\"\xc3\"", 3, &err), &err, CUECARD_STATUS_INVALID_UTF8, "`step_json` is not valid UTF-8", "step bytes");
    expect_invalid(cuecard_mock_then_responds(mock, "{nope", 5, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "is not valid JSON", "step JSON");
    expect_invalid(cuecard_mock_then_responds(mock, "123", 3, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "expected a text or a step object", "step type");
    expect_invalid(cuecard_mock_then_fails(mock, "{\"kind\": \"rate_limit\"}", 22, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "at kind: unknown variant", "fail kind");
    expect_invalid(cuecard_mock_route(mock, "{\"on_exhausted\": \"sometimes\"}", 29, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "on_exhausted", "route");
    expect_invalid(cuecard_mock_chat(mock, "{\"model\": \"m\", \"messages\": 5}", 29, &out, NULL, &err), &err, CUECARD_STATUS_INVALID_REQUEST, "messages", "request");
    expect_invalid(cuecard_mock_from_scenario("{\"cuecard\": 1}", 14, &mock, &err), &err, CUECARD_STATUS_INVALID_SCENARIO, "routes", "scenario");
    char deep[600];
    memset(deep, '[', 300);
    memset(deep + 300, ']', 300);
    expect_invalid(cuecard_mock_then_calls_tool(mock, "f", 1, deep, 600, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "recursion limit", "deep JSON");

    /* A handle of the wrong kind. */
    cuecard_observer *observer = NULL;
    cuecard_observer_new(&observer, NULL);
    expect_invalid(cuecard_mock_then_responds((const cuecard_mock *)(const void *)observer, "\"x\"", 3, &err), &err,
                   CUECARD_STATUS_INVALID_ARGUMENT, "argument `mock` is not a cuecard_mock (it is cuecard_observer)", "wrong handle");
    cuecard_mock_free((cuecard_mock *)(void *)observer); /* ignored: not a mock */
    cuecard_observer_free(observer);

    /* Issue #59: a check named by an integer is not the check at that index (S16), and a header is a name and a
     * value, not three items (S17). */
    expect_invalid(cuecard_mock_check(mock, NULL, "{\"check\": 1}", 12, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT,
                   "expected a variant name", "a check named by an integer");
    expect_invalid(cuecard_mock_handle_http(mock, "GET", 3, "/v1/models", 10, "[[\"a\", \"b\", \"c\"]]", 17, NULL, 0, &out, &err),
                   &err, CUECARD_STATUS_INVALID_ARGUMENT, "[0]: invalid length 3, expected a tuple of size 2", "a header of three items");

    /* The script runs out: a clear error, and the request is journaled. */
    cuecard_mock_then_responds(mock, "\"only\"", 6, NULL);
    CHECK(cuecard_mock_chat(mock, "\"first\"", 7, &out, NULL, NULL) == CUECARD_STATUS_OK, "first");
    cuecard_string_free(out);
    expect_invalid(cuecard_mock_chat(mock, "\"second\"", 8, &out, NULL, &err), &err, CUECARD_STATUS_SCRIPT_EXHAUSTED, "all were used", "exhausted");
    expect_invalid(cuecard_mock_check(mock, NULL, "{\"check\": \"no_unexpected_requests\"}", 35, &err), &err,
                   CUECARD_STATUS_ASSERTION_FAILED, "last user message \"second\"", "check after exhaustion");

    /* A scripted failure is a provider error with its facts in the JSON. */
    cuecard_mock_free(mock);
    cuecard_mock_new(NULL, 0, &mock, NULL);
    cuecard_mock_then_fails(mock, "{\"kind\": \"rate_limited\", \"retry_after_ms\": 20}", 46, NULL);
    CHECK(cuecard_mock_chat(mock, "\"hi\"", 4, &out, NULL, &err) == CUECARD_STATUS_PROVIDER_ERROR, "provider error");
    CHECK(err && strcmp(cuecard_error_code(err), "provider_error") == 0 && strstr(cuecard_error_json(err), "\"retry_after_ms\":20"),
          "provider error JSON %s", err ? cuecard_error_json(err) : "NULL");
    drop_error(&err);
    cuecard_mock_free(mock);

    /* A panic becomes CUECARD_STATUS_INTERNAL, never an abort. */
    CHECK(cuecard_testing_panic(&err) == CUECARD_STATUS_INTERNAL && strstr(cuecard_error_message(err), "cuecard_testing_panic"),
          "panic boundary");
    drop_error(&err);
    CHECK(cuecard_testing_error(100, &err) == CUECARD_STATUS_PROVIDER_ERROR, "testing provider error");
    drop_error(&err);
    CHECK(strcmp(cuecard_status_code(999), "unknown") == 0, "unknown status");
}

/* `cuecard_drift`: the committed recording of the real APIs' replies has no drift; a missing file and NULLs are
 * typed errors. */
static void drift_reports(const char *root) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/recordings/wire-spec-examples.yaml", root);
    char *report = NULL;
    cuecard_error *err = NULL;
    CHECK(cuecard_drift(path, strlen(path), &report, &err) == CUECARD_STATUS_OK, "drift %s", err ? cuecard_error_message(err) : "");
    CHECK(report && strstr(report, "\"drifted\":false") && strstr(report, "\"endpoint\":\"messages\""), "drift report %s",
          report ? report : "NULL");
    cuecard_string_free(report);
    expect_invalid(cuecard_drift("/nonexistent/r.yaml", 19, &report, &err), &err, CUECARD_STATUS_NOT_FOUND, "/nonexistent/r.yaml", "drift of a missing file");
    expect_invalid(cuecard_drift(path, strlen(path), NULL, &err), &err, CUECARD_STATUS_INVALID_ARGUMENT, "out_report_json", "drift without an out pointer");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
        return 2;
    }
    CHECK(cuecard_version_number() == CUECARD_VERSION_NUMBER, "header %d, library %u", CUECARD_VERSION_NUMBER, cuecard_version_number());
    tokenizer_vectors(argv[1], "tokenizer.json", 30);
    tokenizer_vectors(argv[1], "tokenizer-reference.json", 1000);
    scenario_vectors(argv[1]);
    error_vectors(argv[1]);
    verify_vectors(argv[1]);
    wire_vectors(argv[1]);
    computed_answers();
    tools_memory_and_observer();
    server_answers_http();
    recording_proxy_records_and_replays();
    drift_reports(argv[1]);
    misuse();
    printf("c ffi: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
