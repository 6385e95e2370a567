"""The supervisor: starts the processes of one installation, watches them and stops them (`boxedin up`)."""

import os

# Every child is started with a preexec_fn (parent_death: PR_SET_PDEATHSIG), so by a real fork()
# that runs the pthread_atfork handlers. gRPC's fork support, on by default in grpcio, restarts its
# poller thread in the child from such a handler; subprocess then closes the child's descriptors
# before exec, the poller's epoll descriptor among them, and gRPC aborts the child (SIGABRT,
# "epoll_wait error: Bad file descriptor"): about one start in a hundred in a process that uses
# gRPC, as the tests and the load tools do. No process of ours uses gRPC across a fork (the AI's
# pools are spawned, Celery's children open their channels after the fork), so it is turned off.
# gRPC reads this when it is imported: the supervisor is imported before it everywhere it runs.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
