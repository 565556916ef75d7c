/* The README's C example (the front page's): CI builds and runs it with ffi/tests/c/run.sh. */
#include "cuecard.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    const char *scenario = "{\"cuecard\": 1, \"routes\": [{\"steps\": [\"Hello!\"]}]}";
    const char *request = "{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}";
    const char *check = "{\"check\": \"script_fully_used\"}";
    cuecard_mock *mock = NULL;
    char *response = NULL;
    if (cuecard_mock_from_scenario(scenario, strlen(scenario), &mock, NULL) != CUECARD_STATUS_OK) return 1;
    if (cuecard_mock_chat(mock, request, strlen(request), &response, NULL, NULL) != CUECARD_STATUS_OK) return 1;
    printf("%s\n", response); /* the neutral response as JSON: message, finish_reason, usage */
    cuecard_string_free(response);
    int ok = cuecard_mock_check(mock, NULL, check, strlen(check), NULL) == CUECARD_STATUS_OK;
    cuecard_mock_free(mock);
    return ok ? 0 : 1;
}
