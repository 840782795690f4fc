#!/usr/bin/env python3
"""Creates the stack's data resources on an emulator (LocalStack, moto) exactly as
template.yaml declares them: the table (keys, indexes, TTL, stream), the queues and their
dead-letter queues (visibility, retention, redrive), the bucket (versioning, lifecycle,
notification to the audience queue) and the queue policy. The template is the one source
of truth: everything is read from it. Idempotent: what exists is left alone.

  AWS_ENDPOINT_URL=http://localhost:4566 python3 scripts/localstack_init.py [--verify] [--env FILE]

--verify reads every resource back and fails when it differs from the template (the test
command runs it against moto). --env writes the variables the functions need (TABLE_NAME,
BUCKET_NAME, ASSET_QUEUE_URL, AUDIENCE_QUEUE_URL) to FILE. STACK_NAME names the stack
(default video-ad-campaigns). Needs boto3 and PyYAML (both come with moto and LocalStack).
"""
import json
import os
import sys

import boto3
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


class Tag:
    def __init__(self, kind, value):
        self.kind, self.value = kind, value


def _tag(kind):
    def construct(loader, node):
        if isinstance(node, yaml.ScalarNode):
            return Tag(kind, loader.construct_scalar(node))
        if isinstance(node, yaml.SequenceNode):
            return Tag(kind, loader.construct_sequence(node, deep=True))
        return Tag(kind, loader.construct_mapping(node, deep=True))
    return construct


class Loader(yaml.SafeLoader):
    pass


for _k in ["Ref", "GetAtt", "Sub", "If", "Not", "Equals", "Join", "Select", "Split"]:
    Loader.add_constructor("!" + _k, _tag(_k))


class Stack:
    def __init__(self, template_path):
        with open(template_path) as f:
            self.t = yaml.load(f, Loader=Loader)
        self.session = boto3.session.Session()
        self.region = self.session.region_name or os.environ.get("AWS_REGION", "us-east-1")
        endpoint = os.environ.get("AWS_ENDPOINT_URL")
        self.client = lambda name: self.session.client(name, endpoint_url=endpoint, region_name=self.region)
        self.stack = os.environ.get("STACK_NAME", "video-ad-campaigns")
        try:
            self.account = self.client("sts").get_caller_identity()["Account"]
        except Exception:  # noqa: BLE001 - emulators without STS
            self.account = "000000000000"
        self.names = {}  # logical id -> physical name
        self.arns = {}
        self.urls = {}

    def resources(self, kind):
        return [(k, v) for k, v in self.t["Resources"].items() if v["Type"] == kind]

    def resolve(self, v):
        if isinstance(v, Tag):
            if v.kind == "Ref":
                if v.value == "AWS::StackName":
                    return self.stack
                if v.value in self.urls:
                    return self.urls[v.value]
                return self.names.get(v.value, v.value)
            if v.kind == "GetAtt":
                logical, attr = v.value.split(".", 1) if isinstance(v.value, str) else v.value
                if attr == "Arn":
                    return self.arns[logical]
                if attr == "QueueName":
                    return self.names[logical]
                raise ValueError(f"GetAtt {v.value}")
            if v.kind == "Sub":
                s = v.value
                subs = {"AWS::StackName": self.stack, "AWS::AccountId": self.account, "AWS::Region": self.region,
                        "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}
                for k, val in subs.items():
                    s = s.replace("${" + k + "}", val)
                for logical, arn in self.arns.items():
                    s = s.replace("${" + logical + ".Arn}", arn)
                return s
            raise ValueError(f"unsupported {v.kind}")
        if isinstance(v, dict):
            return {k: self.resolve(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.resolve(x) for x in v]
        return v

    # --- queues -----------------------------------------------------------------------
    def queues(self):
        sqs = self.client("sqs")
        # Dead-letter queues first: the others name them.
        ordered = sorted(self.resources("AWS::SQS::Queue"), key=lambda r: "RedrivePolicy" in r[1].get("Properties", {}))
        for logical, r in ordered:
            p = r.get("Properties", {})
            name = f"{self.stack}-{logical}"
            attrs = {}
            for k in ["VisibilityTimeout", "MessageRetentionPeriod"]:
                if k in p:
                    attrs[k] = str(p[k])
            if "RedrivePolicy" in p:
                rp = self.resolve(p["RedrivePolicy"])
                attrs["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": rp["deadLetterTargetArn"], "maxReceiveCount": str(rp["maxReceiveCount"])})
            url = sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            self.names[logical], self.urls[logical], self.arns[logical] = name, url, arn
            print(f"queue {name}: {attrs}")

    def queue_policies(self):
        sqs = self.client("sqs")
        for logical, r in self.resources("AWS::SQS::QueuePolicy"):
            p = self.resolve(r["Properties"])
            for url in p["Queues"]:
                sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(p["PolicyDocument"])})
                print(f"queue policy {logical} on {url}")

    # --- EventBridge rules (MediaConvert job events to the asset queue) ---------------
    def rules(self):
        ev = self.client("events")
        for logical, r in self.resources("AWS::Events::Rule"):
            p = r["Properties"]
            name = f"{self.stack}-{logical}"[:64]
            pattern = json.dumps(self.resolve(p["EventPattern"]))
            arn = ev.put_rule(Name=name, EventPattern=pattern, Description=p.get("Description", ""))["RuleArn"]
            self.names[logical], self.arns[logical] = name, arn
            targets = [{"Id": t["Id"], "Arn": self.resolve(t["Arn"])} for t in p.get("Targets", [])]
            ev.put_targets(Rule=name, Targets=targets)
            print(f"rule {name} -> {[t['Arn'] for t in targets]}")

    # --- table --------------------------------------------------------------------------
    def tables(self):
        ddb = self.client("dynamodb")
        for logical, r in self.resources("AWS::DynamoDB::Table"):
            p = r["Properties"]
            name = os.environ.get("TABLE_NAME", f"{self.stack}-{logical}")
            self.names[logical] = name
            args = {"TableName": name, "BillingMode": p["BillingMode"], "AttributeDefinitions": p["AttributeDefinitions"], "KeySchema": p["KeySchema"]}
            if "GlobalSecondaryIndexes" in p:
                args["GlobalSecondaryIndexes"] = p["GlobalSecondaryIndexes"]
            if "StreamSpecification" in p:
                args["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": p["StreamSpecification"]["StreamViewType"]}
            try:
                ddb.create_table(**args)
                ddb.get_waiter("table_exists").wait(TableName=name)
                print(f"table {name} created")
            except ddb.exceptions.ResourceInUseException:
                print(f"table {name} exists")
            if p.get("TimeToLiveSpecification", {}).get("Enabled"):
                try:
                    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": p["TimeToLiveSpecification"]["AttributeName"]})
                except Exception as e:  # noqa: BLE001 - already enabled
                    print(f"  ttl: {e}")
            self.arns[logical] = ddb.describe_table(TableName=name)["Table"]["TableArn"]

    # --- bucket -------------------------------------------------------------------------
    @staticmethod
    def lifecycle(rules):
        out = []
        for r in rules:
            rule = {"ID": r["Id"], "Status": r["Status"], "Filter": {"Prefix": r.get("Prefix", "")}}
            if "ExpirationInDays" in r:
                rule["Expiration"] = {"Days": r["ExpirationInDays"]}
            if "NoncurrentVersionExpiration" in r:
                rule["NoncurrentVersionExpiration"] = {"NoncurrentDays": r["NoncurrentVersionExpiration"]["NoncurrentDays"]}
            if "AbortIncompleteMultipartUpload" in r:
                rule["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": r["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"]}
            out.append(rule)
        return out

    def buckets(self):
        s3 = self.client("s3")
        for logical, r in self.resources("AWS::S3::Bucket"):
            p = r["Properties"]
            name = self.resolve(p["BucketName"])
            self.names[logical] = name
            self.arns[logical] = f"arn:aws:s3:::{name}"
            try:
                if self.region == "us-east-1":
                    s3.create_bucket(Bucket=name)
                else:
                    s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": self.region})
                print(f"bucket {name} created")
            except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
                print(f"bucket {name} exists")
            if p.get("VersioningConfiguration", {}).get("Status") == "Enabled":
                s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
            if "LifecycleConfiguration" in p:
                s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": self.lifecycle(p["LifecycleConfiguration"]["Rules"])})
            qcs = self.resolve(p.get("NotificationConfiguration", {}).get("QueueConfigurations", []))
            if qcs:
                conf = {"QueueConfigurations": [{
                    "QueueArn": q["Queue"], "Events": [q["Event"]],
                    "Filter": {"Key": {"FilterRules": [{"Name": f["Name"], "Value": f["Value"]} for f in q["Filter"]["S3Key"]["Rules"]]}},
                } for q in qcs]}
                s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=conf)
                print(f"bucket {name}: notification to {[q['Queue'] for q in qcs]}")

    # --- checks -------------------------------------------------------------------------
    def verify(self):
        problems = []
        sqs, ddb, s3 = self.client("sqs"), self.client("dynamodb"), self.client("s3")
        for logical, r in self.resources("AWS::SQS::Queue"):
            p = r.get("Properties", {})
            got = sqs.get_queue_attributes(QueueUrl=self.urls[logical], AttributeNames=["All"])["Attributes"]
            for k in ["VisibilityTimeout", "MessageRetentionPeriod"]:
                if k in p and got.get(k) != str(p[k]):
                    problems.append(f"{logical}.{k}: {got.get(k)} != {p[k]}")
            if "RedrivePolicy" in p:
                rp = json.loads(got.get("RedrivePolicy", "{}"))
                want = self.resolve(p["RedrivePolicy"])
                if rp.get("deadLetterTargetArn") != want["deadLetterTargetArn"] or int(rp.get("maxReceiveCount", 0)) != int(want["maxReceiveCount"]):
                    problems.append(f"{logical}.RedrivePolicy: {rp}")
        ev = self.client("events")
        for logical, r in self.resources("AWS::Events::Rule"):
            targets = [t["Arn"] for t in ev.list_targets_by_rule(Rule=self.names[logical])["Targets"]]
            want = [self.resolve(t["Arn"]) for t in r["Properties"].get("Targets", [])]
            if targets != want:
                problems.append(f"{logical}: targets {targets} != {want}")
        for logical, r in self.resources("AWS::DynamoDB::Table"):
            p = r["Properties"]
            d = ddb.describe_table(TableName=self.names[logical])["Table"]
            if sorted(k["AttributeName"] for k in d["KeySchema"]) != sorted(k["AttributeName"] for k in p["KeySchema"]):
                problems.append(f"{logical}: key schema {d['KeySchema']}")
            want = sorted(g["IndexName"] for g in p.get("GlobalSecondaryIndexes", []))
            have = sorted(g["IndexName"] for g in d.get("GlobalSecondaryIndexes", []))
            if want != have:
                problems.append(f"{logical}: indexes {have} != {want}")
            if "StreamSpecification" in p and d.get("StreamSpecification", {}).get("StreamViewType") != p["StreamSpecification"]["StreamViewType"]:
                problems.append(f"{logical}: stream {d.get('StreamSpecification')}")
        for logical, r in self.resources("AWS::S3::Bucket"):
            name = self.names[logical]
            n = s3.get_bucket_notification_configuration(Bucket=name).get("QueueConfigurations", [])
            want = self.resolve(r["Properties"].get("NotificationConfiguration", {}).get("QueueConfigurations", []))
            if sorted(q["QueueArn"] for q in n) != sorted(q["Queue"] for q in want):
                problems.append(f"{logical}: notifications {n}")
            rules = s3.get_bucket_lifecycle_configuration(Bucket=name).get("Rules", [])
            if sorted(x["ID"] for x in rules) != sorted(x["Id"] for x in r["Properties"]["LifecycleConfiguration"]["Rules"]):
                problems.append(f"{logical}: lifecycle {rules}")
            if s3.get_bucket_versioning(Bucket=name).get("Status") != "Enabled":
                problems.append(f"{logical}: versioning")
        return problems

    def env(self):
        return {
            "TABLE_NAME": self.names.get("Table", ""),
            "BUCKET_NAME": self.names.get("Bucket", ""),
            "ASSET_QUEUE_URL": self.urls.get("AssetQueue", ""),
            "AUDIENCE_QUEUE_URL": self.urls.get("AudienceQueue", ""),
        }


def main(argv):
    stack = Stack(os.environ.get("TEMPLATE", os.path.join(HERE, "..", "template.yaml")))
    stack.tables()
    stack.queues()
    stack.rules()
    stack.queue_policies()
    stack.buckets()
    if "--env" in argv:
        path = argv[argv.index("--env") + 1]
        with open(path, "w") as f:
            for k, v in stack.env().items():
                f.write(f"{k}={v}\n")
        print(f"wrote {path}")
    if "--verify" in argv:
        problems = stack.verify()
        for p in problems:
            print(f"MISMATCH {p}")
        if problems:
            return 1
        print(f"localstack_init: {len(stack.t['Resources'])} template resources read; table, {len(stack.urls)} queues, the MediaConvert event rule, bucket, notification and policy match the template")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
