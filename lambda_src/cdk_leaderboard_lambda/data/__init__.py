"""All DynamoDB access, one module per kind of item. Nothing outside this package imports boto3."""
