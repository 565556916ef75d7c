-- wrk script: POST one chat completion request (non-streaming, or streaming when STREAM=1).
local stream = os.getenv("STREAM") == "1"
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"gpt-4o","stream":' .. (stream and "true" or "false") ..
  ',"messages":[{"role":"user","content":"What is the weather in Paris?"}]}'
