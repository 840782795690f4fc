-- Ad requests for wrk (scripts/serve-load.sh): as fast as the connections go (no delay),
-- each request a different mix of format, category, tags, partner, location, viewer and
-- custom parameter over the generated account (domain::delivery::synthetic's values).
local account = os.getenv("ACCOUNT")
local n = 0
local formats = {"preroll", "midroll", "postroll"}

function setup(thread)
  thread:set("id", math.random(1000000))
end

function request()
  n = n + 1
  local r = (n * 7919 + id) % 1000003
  local path = string.format(
    "/v1/adrequest?account=%s&format=%s&category=cat-%d-%d&tags=tag-%d,tag-%d&contentPartner=cp-%d&loc=loc-%d&pid=viewer-%d&acp.genre=%s&seed=%d",
    account, formats[(r % 3) + 1], r % 10, math.floor(r / 10) % 4, r % 40, math.floor(r / 7) % 40, r % 12, r % 30, r % 100000,
    (r % 3 == 0) and "horror" or "drama", r)
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d duration_s=%.1f rate_per_s=%.0f errors=%d non_2xx=%d p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6), errors, summary.errors.status,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
