"""impact_client: a small client of the Impact JSON-RPC service (standard library only,
Python 3.9+).

    from impact_client import Client, LocalServer

    with LocalServer() as server:           # starts impact-server on a free loopback port
        c = server.client()
        summary = c.solve(model)            # blocks until done
        job = c.submit(model)               # returns the job id at once
        status = c.wait(job, timeout=60)    # job.wait
        nodes = c.probe(job, at=[[0, 0, 0]])["nodes"]
        forces = c.history(job)             # solve.history
"""

from .client import Client, ImpactError
from .local import LocalServer

__all__ = ["Client", "ImpactError", "LocalServer"]
__version__ = "0.1.0"
