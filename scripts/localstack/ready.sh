#!/bin/sh
# LocalStack's ready hook: the stack's table, queues, bucket and notification from the template.
export AWS_ENDPOINT_URL=http://localhost:4566 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=${AWS_DEFAULT_REGION:-eu-west-1}
TEMPLATE=/opt/stack/template.yaml python3 /opt/stack/localstack_init.py --verify --env /tmp/stack.env
