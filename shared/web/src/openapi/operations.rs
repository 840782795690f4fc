//! What each operation does, in a few sentences, for the operations whose handler does not
//! say it in its `#[utoipa::path]` (a `description` there wins). A unit test requires a
//! description on every operation of the document.

/// The description of the operation `method path`, when this table has one.
pub fn describe(method: &str, path: &str) -> Option<&'static str> {
    Some(match (method, path) {
        // Clients, contacts (seed 001 §2.3-§2.4, XML).
        ("get", "/api/1.0/client") => "The account's clients (advertisers, agencies, brands), a page at a time, by name.",
        ("post", "/api/1.0/client") => "Creates a client from a `clientBean`; answers its id. The name is required and unique per type in the account.",
        ("get", "/api/1.0/client/{seg}") => "`;id=<id>`: one client; `by_campaign_id;id=<id>`: the campaign's advertiser, agency and brand. Another account's id is 404.",
        ("put", "/api/1.0/client/{seg}") => "Replaces a client's fields (`If-Match` with its ETag makes the write conditional; a stale one is 412).",
        ("delete", "/api/1.0/client/{seg}") => "Deletes a client that no campaign names (409 while one does); its contacts go with it.",
        ("post", "/api/1.0/contact") => "Creates a contact from a `contactBean`; answers its id. Associate it with a client with the associate operation.",
        ("put", "/api/1.0/contact/associate/{seg}") => "`;contactId=<id>;clientId=<id>`: associates the contact with the client (both of the account).",
        ("get", "/api/1.0/contact/{seg}") => "`;id=<id>`: one contact; `by_client_id;id=<id>`: the client's contacts.",
        ("put", "/api/1.0/contact/{seg}") => "Replaces a contact's fields (conditional with `If-Match`).",
        ("delete", "/api/1.0/contact/{seg}") => "Deletes a contact and its associations.",
        // Campaigns and goals (seed 001 §2.1-§2.2, XML).
        ("get", "/api/1.0/campaign") => "The account's live campaigns, a page at a time (archived ones: the archived operation).",
        ("post", "/api/1.0/campaign") => "Creates a campaign from a `campaignBean` (name and advertiser required); answers its id. New campaigns are disabled unless `enabled` is true.",
        ("get", "/api/1.0/campaign/archived") => "`?month=YYYY-MM`: the campaigns archived in that month.",
        ("get", "/api/1.0/campaign/notification/{seg}") => "`by_campaign_id;id=<id>`: what keeps the campaign or its goals from delivering as planned: no ads, media not ready, caps and pacing, a projected shortfall, an under-delivered end (docs/api.md, \"Notifications\").",
        ("get", "/api/1.0/campaign/rules/{seg}") => "`;id=<id>`: the campaign's targeting rules (every dimension, empty when unset).",
        ("put", "/api/1.0/campaign/rules/{seg}") => "Replaces the campaign's targeting rules; every goal of the campaign inherits them unless it overrides a dimension.",
        ("get", "/api/1.0/campaign/{seg}") => "`;id=<id>`: one campaign with its goals' ids.",
        ("put", "/api/1.0/campaign/{seg}") => "Replaces a campaign's fields; `archived` true archives it (it stops serving), false restores it. Conditional with `If-Match`.",
        ("delete", "/api/1.0/campaign/{seg}") => "Deletes a campaign and its goals; it stops serving at once. Its metrics and report rows stay.",
        ("post", "/api/1.0.cpvext/goal") => "Creates a goal in a campaign from a `goalBean` (campaign, type, variant and start required; a value for targeted types); answers its id.",
        ("get", "/api/1.0.cpvext/goal/rules/{seg}") => "`;id=<id>`: the goal's own targeting rules (the campaign's apply too unless overridden).",
        ("put", "/api/1.0.cpvext/goal/rules/{seg}") => "Replaces the goal's targeting rules.",
        ("get", "/api/1.0.cpvext/goal/{seg}") => "`;id=<id>`: one goal; `by_campaign_id;id=<id>`: the campaign's goals.",
        ("put", "/api/1.0.cpvext/goal/{seg}") => "Replaces a goal's fields (conditional with `If-Match`); delivery picks the change up within seconds.",
        ("delete", "/api/1.0.cpvext/goal/{seg}") => "Deletes a goal; its ads stop serving. Its metrics and report rows stay.",
        // Forecasts (seed 002 §2.4-§2.7).
        ("post", "/api/2.0/forecast/campaign") => "Starts a delivery forecast of a proposed campaign: 202 with the job's Location. The job replays the account's traffic with the proposal added (docs/forecasts.md); at most 3 jobs at once per account (429).",
        ("post", "/api/2.0/forecast/inventory") => "Starts an inventory forecast: 202 with the job's Location; the report gives the matching requests per day and format, and what booked goals leave.",
        ("get", "/api/2.0/forecast/job/{id}") => "The job's status and progress; 201 with the report's Location once FINISHED.",
        ("post", "/api/2.0/forecast/job/{id}/cancel") => "Cancels a job that has not finished (it becomes CANCELLED and frees its slot).",
        ("get", "/api/2.0/forecast/report/{kind}/{id}") => "The report of a finished job (`kind`: campaign or inventory): per day with a low-high band.",
        ("get", "/api/2.0/forecast/report/{kind}/{id}/chart.svg") => "The report as an SVG chart: dates of the account's zone, round ticks, bands, the targets labelled.",
        // Targeting templates (seed 002 §2.2).
        ("get", "/api/2.0/targeting-template") => "The account's targeting templates with their rules.",
        ("get", "/api/2.0/targeting-template/{id}") => "One targeting template.",
        ("put", "/api/2.0/targeting-template/{id}") => "Renames a template (only the name changes); 204.",
        ("delete", "/api/2.0/targeting-template/{id}") => "Deletes a template; its links to campaigns and goals go with it; 204.",
        ("post", "/api/2.0/targeting-template/{id}/import") => "`?campaignId=` or `?goalId=`: copies the template's rules into that record's own rules (no link is kept); 204.",
        ("put", "/api/2.0/targeting-template/{id}/link") => "`?campaignId=` or `?goalId=`: links the template, so its rules apply to the record as long as the link lasts; 204.",
        ("delete", "/api/2.0/targeting-template/{id}/link") => "`?campaignId=` or `?goalId=`: removes the link; 204, also when there was none.",
        ("get", "/api/2.0/targeting-template/{id}/rules") => "The template's rules.",
        // Reference data.
        ("get", "/v0/categories") => "The account's content category tree: the root first, then by name, each with its parents.",
        ("get", "/v0/categories/{id}") => "One content category.",
        ("get", "/v0/content-partners") => "The account's content partners.",
        ("get", "/v0/content-partners/{id}") => "One content partner.",
        ("get", "/v0/device-containers/{id}") => "One device container.",
        ("get", "/v3/banner-areas") => "The account's banner areas.",
        ("get", "/v3/banner-areas/{id}") => "One banner area.",
        ("get", "/docs/{file}") => "The reference page's script and stylesheet (Swagger UI, from the swagger-ui-dist crate) and its start script; cached for a day.",
        // Serving and tracking (docs/delivery.md).
        ("get", "/v1/adrequest") => "What a player calls (the exported VAST URL): the account's decision for the request (targeting, flights, caps, pacing, priorities, insertion policy) as VAST 2.0, 3.0, 4.2 or VMAP 1.0 with signed tracking links; an empty `<VAST>` when nothing can serve. `debug=1` with the API key redirects to the inspector. Public.",
        ("get", "/v1/track/{event}") => "What a served document's tracking links call: verifies the link's signature, counts the event once (invalid traffic apart) and answers 204 (a click: 302 to its destination). Public.",
        // Ads and assets (seed 000).
        ("post", "/v1/ads") => "Creates an ad in a goal with its creative (an uploaded asset, a third-party VAST, VPAID or IPTV); answers it with its id. An asset's ad serves once the asset is transcoded.",
        ("put", "/v1/ads") => "Replaces an ad (the body names its id); conditional with `If-Match`.",
        ("patch", "/v1/ads") => "Changes the fields the body names (and its id); the others stay.",
        ("get", "/v1/ads/{id}") => "One ad with its creative, trackers and weight.",
        ("get", "/v1/assets/video/{id}") => "A video asset: its state (DOWNLOADING, READY, TRANSCODING, TRANSCODED, FAILED), what the probe measured, its renditions and still (docs/media.md).",
        // Audience (seed 002 §2.8).
        ("post", "/v1/audience/batch") => "Uploads a batch of viewer-segment rows for a provider (CSV, gzip allowed, up to 64 MB); 202 with the batch's link. A worker applies it (docs/audience.md).",
        ("get", "/v1/audience/batch/{id}") => "A batch's progress and counts (rows read, invalid rows, rows naming unknown segments).",
        ("post", "/v1/audience/batch/{id}/cancel") => "Cancels a batch below 100 % (CANCELLED, also when asked again); a finished batch is 400.",
        ("get", "/v1/audience/provider/{id}") => "One audience provider with its segmentations and segments.",
        // Insertion policies (seed 000 §4.11).
        ("get", "/v1/insertion-policy") => "The account's insertion policies, a page at a time.",
        ("post", "/v1/insertion-policy") => "Creates an insertion policy (which breaks run, how many ads, for how long; skip button; overlays), for content categories and tags.",
        ("put", "/v1/insertion-policy") => "Replaces an insertion policy (the body names its id).",
        ("get", "/v1/insertion-policy/ranking") => "The policies' rank order: for a request, the highest-ranked matching policy applies.",
        ("get", "/v1/insertion-policy/template") => "A policy with every default filled in, to edit and create from.",
        ("get", "/v1/insertion-policy/{id}") => "One insertion policy.",
        ("delete", "/v1/insertion-policy/{id}") => "Deletes a policy; it leaves the ranking.",
        // The /v3 queries (seed 000 §4.5-§4.10).
        ("get", "/v3/campaigns") => "The account's campaigns with filters, sorting and paging; `expand` nests goals and ads, `embed=metrics` adds each campaign's metrics.",
        ("get", "/v3/goals") => "The account's goals (or a campaign's) with filters, sorting and paging; `embed=metrics` and `embed=projections` (the projection to the end, docs/reports.md) add figures.",
        ("get", "/v3/goals/{id}") => "One goal, with `expand=ads`, `embed=metrics` and `embed=projections`.",
        ("get", "/v3/ads") => "The account's ads (or a goal's), with `metrics=` counters and rates.",
        ("get", "/v3/ads/{ad_id}") => "One ad with its metrics.",
        ("get", "/v3/ads/{ad_id}/vasturl/{kind}/{id}") => "The ad's exported VAST URL for a category or content partner (`kind`): the URL a player calls, with `rt` the response type and `[RANDOM_NUMBER]` for the player to fill.",
        _ => return None,
    })
}
