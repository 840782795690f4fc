// Reads a served document on stdin and prints what a player-side client makes of it, as
// JSON: `node parse.mjs vast` (VASTParser of @dailymotion/vast-client) or `node parse.mjs
// vmap` (@dailymotion/vmap, then every break's inline VAST through VASTParser). Exits
// non-zero when the client rejects the document.
import { VASTParser } from '@dailymotion/vast-client';
import VMAP from '@dailymotion/vmap';
import { DOMParser } from '@xmldom/xmldom';

const kind = process.argv[2] || 'vast';
let text = '';
for await (const chunk of process.stdin) text += chunk;

function xml(s) {
  const errors = [];
  const doc = new DOMParser({ onError: (level, msg) => { if (level !== 'warning') errors.push(msg); } }).parseFromString(s, 'text/xml');
  if (errors.length) throw new Error('not well-formed: ' + errors.join('; '));
  return doc;
}

function creative(c) {
  return {
    type: c.type,
    duration: c.duration,
    skipDelay: c.skipDelay ?? null,
    mediaFiles: (c.mediaFiles || []).map((m) => ({ fileURL: m.fileURL, mimeType: m.mimeType, deliveryType: m.deliveryType, width: m.width, height: m.height })),
    trackingEvents: c.trackingEvents || {},
    clickThrough: c.videoClickThroughURLTemplate?.url ?? c.videoClickThroughURLTemplate ?? null,
    clickTrackings: (c.videoClickTrackingURLTemplates || []).map((t) => t.url ?? t),
    variations: (c.variations || []).map((v) => ({ staticResource: v.staticResources?.[0]?.url ?? v.staticResource ?? null, clickThrough: v.nonlinearClickThroughURLTemplate ?? null })),
  };
}

async function vast(doc) {
  const parser = new VASTParser();
  const res = await parser.parseVAST(doc, { resolveAll: false });
  return {
    version: res.version,
    ads: res.ads.map((a) => ({
      id: a.id,
      sequence: a.sequence,
      system: a.system?.value ?? a.system,
      title: a.title,
      impressions: (a.impressionURLTemplates || []).map((t) => t.url ?? t),
      wrapper: a.nextWrapperURL ?? null,
      creatives: a.creatives.map(creative),
    })),
  };
}

try {
  let out;
  if (kind === 'vmap') {
    const map = new VMAP(xml(text));
    out = { version: map.version, breaks: [] };
    for (const b of map.adBreaks) {
      const data = b.adSource?.vastAdData;
      const inner = data ? await vast(xml(new (await import('@xmldom/xmldom')).XMLSerializer().serializeToString(data))) : null;
      out.breaks.push({ timeOffset: b.timeOffset, breakType: b.breakType, breakId: b.breakId, vast: inner });
    }
  } else {
    out = await vast(xml(text));
  }
  process.stdout.write(JSON.stringify(out));
} catch (e) {
  process.stderr.write(String(e && e.stack || e));
  process.exit(2);
}
