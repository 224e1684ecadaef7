# symguard HTTP service: one uvicorn process (event loop) + solver worker processes.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    SYMGUARD_WORKERS=2

WORKDIR /app
COPY pyproject.toml README.md ./
COPY solver ./solver
COPY service ./service
# symguard/solver and symguard/service are symlinks to the two folders above (one import package)
COPY symguard ./symguard
RUN pip install . \
 && useradd --system --uid 10001 --no-create-home symguard

USER symguard
EXPOSE 8000

# /readyz is 200 once the solver workers are up (503 while they boot or during shutdown).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD python -c "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2).status == 200 else 1)"

# SIGTERM: uvicorn stops accepting, requests in flight finish, then the workers stop.
STOPSIGNAL SIGTERM
CMD ["sh", "-c", "exec symguard serve --host 0.0.0.0 --port 8000 --workers \"$SYMGUARD_WORKERS\""]
