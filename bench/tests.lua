-- wrk script: non-streaming chat completions spread round-robin over TESTS tests of one server, each under its own
-- prefix /t/test{n}/ (bench/isolation-load.sh); TESTS=0 sends them unprefixed, to the default test.
local tests = tonumber(os.getenv("TESTS") or "64")
local counter = 0
local body = '{"model":"gpt-4o","stream":false,"messages":[{"role":"user","content":"What is the weather in Paris?"}]}'
local headers = { ["Content-Type"] = "application/json" }

request = function()
  local path = "/v1/chat/completions"
  if tests > 0 then
    path = "/t/test" .. (counter % tests) .. path
    counter = counter + 1
  end
  return wrk.format("POST", path, headers, body)
end
