# Sourced by the tracking benches (scripts/profile-bench.sh, scripts/group-commit-bench.sh):
# `impression_links BASE N OUT UA` finds a pre-roll ad of demo-alpha that is served when
# asked for (its targeting met: the category tried), asks for it N times (each answer its
# own impression id) and writes OUT, a wrk script that requests those signed impression
# links in turn and prints a RESULT line (rate, errors, answered, p50, p99). Sets AD.
impression_links() {
  local base=$1 n=$2 out=$3 ua=$4 key=alpha-demo-key-7f3c9a1e5b2d4680 q=""
  AD=""
  for A in $(curl -sf -H "x-o-api-key: $key" "$base/v1/ads" | python3 -c 'import json,sys; [print(a["id"]) for a in json.load(sys.stdin) if a["creative"].get("insertionPoint") == "preroll"][:20]'); do
    for CAT in "" $(for i in $(seq 0 9); do for j in 0 1 2 3; do echo "cat-$i-$j"; done; done); do
      if curl -sf "$base/v1/adrequest?account=demo-alpha&ad=$A&category=$CAT&format=preroll&rt=vast_3_0" | grep -q "<Ad id=\"$A\""; then AD=$A; q="category=$CAT"; break 2; fi
    done
  done
  [ -n "$AD" ] || { echo "no ad is served when asked for"; return 1; }
  BASE="$base" AD="$AD" Q="$q" N="$n" OUT="$out" UA="$ua" python3 - <<'PY'
import os, re, html, urllib.request, concurrent.futures
base, ad, q, n, ua = os.environ["BASE"], os.environ["AD"], os.environ["Q"], int(os.environ["N"]), os.environ["UA"]
def one(i):
    req = urllib.request.Request(f"{base}/v1/adrequest?account=demo-alpha&ad={ad}&{q}&format=preroll&rt=vast_3_0&rnd={i}&seed={i}", headers={"User-Agent": ua})
    doc = urllib.request.urlopen(req).read().decode()
    m = re.search(r"<Impression[^>]*>(?:<!\[CDATA\[)?([^<\]]+)", doc)
    return html.unescape(m.group(1)).replace(base, "") if m else None
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    links = [l for l in ex.map(one, range(n)) if l]
with open(os.environ["OUT"], "w") as f:
    f.write("local links = {\n" + ",\n".join('"%s"' % l for l in links) + "}\nlocal i = 0\n")
    f.write('wrk.headers["User-Agent"] = "%s"\n' % ua)
    f.write("function request() i = i % #links + 1; return wrk.format('GET', links[i]) end\n")
    f.write("function done(s, l, r) io.write(string.format('RESULT rate_per_s=%.0f errors=%d answered=%d p50_ms=%.2f p99_ms=%.2f\\n', s.requests / (s.duration / 1e6), s.errors.status + s.errors.timeout + s.errors.connect, s.requests - s.errors.status, l:percentile(50) / 1000, l:percentile(99) / 1000)) end\n")
print(len(links), "links")
if not links:
    raise SystemExit("no impression link in the answers")
PY
}
