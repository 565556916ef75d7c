/* The book's C quickstart (docs/start/c.md): script a model, call it, check what happened. CI compiles it against
 * include/cuecard.h and runs it linked both dynamically and statically with libcuecard_ffi. */
#include "cuecard.h"

#include <stdio.h>
#include <string.h>

/* Prints the error (if any) and frees it; returns whether the call succeeded. */
static int ok(cuecard_status status, cuecard_error *err) {
    if (status != CUECARD_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", cuecard_error_code(err), cuecard_error_message(err));
    }
    cuecard_error_free(err);
    return status == CUECARD_STATUS_OK;
}

int main(void) {
    cuecard_mock *mock = NULL;
    cuecard_error *err = NULL;
    const char *scenario =
        "{\"cuecard\": 1, \"routes\": [{\"steps\": ["
        "{\"fail\": {\"kind\": \"rate_limited\", \"retry_after_ms\": 20}},"
        "\"It is 22 degrees and sunny in Paris.\"]}]}";
    if (!ok(cuecard_mock_from_scenario(scenario, strlen(scenario), &mock, &err), err)) return 1;

    const char *request =
        "{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"Weather in Paris?\"}],"
        " \"metadata\": {\"operation\": \"weather\"}}";
    char *response = NULL;
    /* The first call fails as scripted: what the code under test would retry. */
    cuecard_status status = cuecard_mock_chat(mock, request, strlen(request), &response, NULL, &err);
    if (status != CUECARD_STATUS_PROVIDER_ERROR) return 1;
    printf("first call: %s\n", cuecard_error_json(err));
    cuecard_error_free(err);
    err = NULL;

    if (!ok(cuecard_mock_chat(mock, request, strlen(request), &response, NULL, &err), err)) return 1;
    printf("second call: %s\n", response);
    cuecard_string_free(response);

    /* Then check what happened: two calls for the operation, one of them a retry. */
    const char *check = "{\"check\": \"and_retried\", \"operation\": \"weather\", \"times\": 1}";
    if (!ok(cuecard_mock_check(mock, NULL, check, strlen(check), &err), err)) return 1;
    const char *all_used = "{\"check\": \"script_fully_used\"}";
    if (!ok(cuecard_mock_check(mock, NULL, all_used, strlen(all_used), &err), err)) return 1;
    printf("quickstart (C): ok, cuecard %s\n", cuecard_version());
    cuecard_mock_free(mock);
    return 0;
}
