"""The peers of hub-bench's PostgreSQL run, on the same database.

  python3 peers.py eventsourcing URL SECONDS THREADS PER_SAVE
      the Python `eventsourcing` library (its postgres persistence, psycopg):
      THREADS threads, each its own aggregate, appending PER_SAVE events a save.
  python3 peers.py pgbench URL SECONDS CLIENTS ROWS
      pgbench's plain insert: ROWS rows a transaction, CLIENTS clients.

Each prints one JSON line: {"perSecond": events or rows a second}.
"""
import json, os, subprocess, sys, tempfile, threading, time
from urllib.parse import urlparse


def eventsourcing_run(url, seconds, threads, per_save):
    u = urlparse(url)
    os.environ.update({
        "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": u.path.lstrip("/"),
        "POSTGRES_HOST": u.hostname, "POSTGRES_PORT": str(u.port or 5432), "POSTGRES_USER": u.username,
        "POSTGRES_PASSWORD": u.password or "", "POSTGRES_POOL_SIZE": str(threads), "POSTGRES_MAX_OVERFLOW": "0",
        "CREATE_TABLE": "y",
    })
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Household(Aggregate):
        @event("Created")
        def __init__(self, name):
            self.name = name

        @event("ItemCreated")
        def create_item(self, name):
            pass

    app = Application()
    counts = [0] * threads
    deadline = time.monotonic() + seconds

    def work(index):
        household = Household(name=f"h{index}")
        app.save(household)
        n = 0
        while time.monotonic() < deadline:
            for _ in range(per_save):
                household.create_item(name=f"item {n}")
                n += 1
            app.save(household)
            counts[index] += per_save

    started = time.monotonic()
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    return sum(counts) / (time.monotonic() - started)


def pgbench_run(url, seconds, clients, rows):
    subprocess.run(["psql", url, "-q", "-c", "CREATE TABLE IF NOT EXISTS bench_lines (household uuid, seq bigint, line bytea, hash text)"], check=True)
    values = ", ".join(["(gen_random_uuid(), 1, convert_to(repeat('x', 280), 'UTF8'), md5(random()::text))"] * rows)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(f"INSERT INTO bench_lines VALUES {values};\n")
    u = urlparse(url)
    env = dict(os.environ, PGPASSWORD=u.password or "")
    # A count of transactions, not -T: pgbench 15 with -T did not stop here (its clients kept going long after).
    per_client = max(100, int(seconds * 400 / rows))
    out = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", "2", "-t", str(per_client), "-f", script.name,
                          "-h", u.hostname, "-p", str(u.port or 5432), "-U", u.username, u.path.lstrip("/")],
                         check=True, capture_output=True, text=True, env=env).stdout
    tps = next(float(line.split("=")[1].split()[0]) for line in out.splitlines() if line.startswith("tps"))
    return tps * rows


if __name__ == "__main__":
    kind, url, seconds, workers, per = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    rate = eventsourcing_run(url, seconds, workers, per) if kind == "eventsourcing" else pgbench_run(url, int(seconds), workers, per)
    print(json.dumps({"perSecond": rate}))
