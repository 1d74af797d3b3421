#!/bin/bash
# The function's Handler: the Lambda Web Adapter's wrapper (AWS_LAMBDA_EXEC_WRAPPER=
# /opt/bootstrap) runs this, then forwards each request to the port. The layers are in
# /opt/python, uvicorn in this folder (requirements.txt), the runtime's boto3 in
# $LAMBDA_RUNTIME_DIR. One worker: the engine holds one libSQL connection per process.
PATH=$PATH:$LAMBDA_TASK_ROOT/bin \
PYTHONPATH=$PYTHONPATH:/opt/python:$LAMBDA_RUNTIME_DIR \
exec python -m uvicorn --host 127.0.0.1 --port "${PORT:-8000}" --no-access-log app:app
