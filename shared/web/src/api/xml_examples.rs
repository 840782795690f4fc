//! Example bodies of the XML interfaces (seed 001) for the OpenAPI document, taken from a
//! run of the local server. The XML interfaces are described as XML text with these
//! examples; the field rules are in docs/api.md and the error body is `<error>`.

pub const CLIENT_IN: &str = "<clientBean><name>Acme Foods</name><type>ADVERTISER</type></clientBean>";
pub const CLIENTS_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><collection><clientBean><id>cc7b0658-c552-4bed-95a2-d14cb667a9b3</id><name>Acme Foods</name><type>ADVERTISER</type></clientBean></collection>"#;

pub const CONTACT_IN: &str =
    "<contactBean><firstName>Ann</firstName><lastName>Lind</lastName><email>ann@acme.example</email></contactBean>";
pub const CONTACTS_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><collection><contactBean><id>85d61586-c954-447a-b8d4-7c8ceedc46a6</id><firstName>Ann</firstName><lastName>Lind</lastName><email>ann@acme.example</email></contactBean></collection>"#;

pub const CAMPAIGN_IN: &str =
    "<campaignBean><name>Spring launch</name><advertiserId>cc7b0658-c552-4bed-95a2-d14cb667a9b3</advertiserId><priority>5</priority></campaignBean>";
pub const CAMPAIGNS_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><collection><campaignBean><advertiserId>cc7b0658-c552-4bed-95a2-d14cb667a9b3</advertiserId><enabled>false</enabled><exclusive>false</exclusive><frontLoadFactor>0</frontLoadFactor><id>7c6b249d-bc9a-4e51-9843-46da72175904</id><includeInForecast>true</includeInForecast><name>Spring launch</name><priority>5</priority><status>UPCOMING</status><vastEnabled>false</vastEnabled></campaignBean></collection>"#;
pub const NOTIFICATIONS_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><map><entry key="7c6b249d-bc9a-4e51-9843-46da72175904"><notificationList><notificationBeans><concernedResource><id>7c6b249d-bc9a-4e51-9843-46da72175904</id><type>CAMPAIGN</type></concernedResource><level>WARNING</level><message>Campaign has no goals; it cannot deliver until a goal with an ad is added.</message><relatedResources><id>7c6b249d-bc9a-4e51-9843-46da72175904</id><type>CAMPAIGN</type></relatedResources></notificationBeans></notificationList></entry></map>"#;

pub const GOAL_IN: &str =
    "<goalBean><campaignId>7c6b249d-bc9a-4e51-9843-46da72175904</campaignId><name>Pre-rolls</name><type>IMPRESSION</type>\
<variant>NORMAL</variant><goalValue>100000</goalValue><start>2027-01-01T00:00:00Z</start><end>2027-02-01T00:00:00Z</end></goalBean>";
pub const GOALS_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><collection><goalBean><campaignId>7c6b249d-bc9a-4e51-9843-46da72175904</campaignId><end>2027-02-01T00:00:00.000Z</end><frontLoadFactor>0</frontLoadFactor><goalValue>100000</goalValue><id>7f403629-2d53-4c58-98d6-d0b244ba2c99</id><name>Pre-rolls</name><pricingModel>NO_PRICING</pricingModel><priority>5</priority><start>2027-01-01T00:00:00.000Z</start><type>IMPRESSION</type><unlimitedImpressions>false</unlimitedImpressions><variant>NORMAL</variant></goalBean></collection>"#;

pub const RULES_IN: &str =
    "<rulesBean><parentId>7f403629-2d53-4c58-98d6-d0b244ba2c99</parentId><frequencyCappings><impressions>3</impressions>\
<timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>";
pub const RULES_OUT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><rulesBean><frequencyCappings><impressions>3</impressions><timeUnit>DAY</timeUnit></frequencyCappings><ignoreParentContentRules>false</ignoreParentContentRules><ignoreParentFrequencyRules>false</ignoreParentFrequencyRules><ignoreParentLocationRules>false</ignoreParentLocationRules><ignoreParentTagRules>false</ignoreParentTagRules><ignoreParentTimeRules>false</ignoreParentTimeRules><parentId>7f403629-2d53-4c58-98d6-d0b244ba2c99</parentId></rulesBean>"#;

/// The id a create answers, as text/plain.
pub const ID_OUT: &str = "cc7b0658-c552-4bed-95a2-d14cb667a9b3";
