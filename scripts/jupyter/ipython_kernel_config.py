# Configuration of the notebooks' kernels (book build, tests, JupyterLab); scripts/setup.sh
# copies it to .venv/etc/ipython/, where IPython reads it at each kernel start.
#
# ipykernel >= 7.4 logs at every start "Kernel is running over TCP without encryption ...":
# the libraries that run our notebooks (nbclient, myst-nb, nbval) start kernels that listen on
# 127.0.0.1 only and have no setting to ask for CurveZMQ keys. That one line is dropped, every
# other kernel message is kept.
import logging


class _DropPlainTcpNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "running over TCP without encryption" not in record.getMessage()


logging.getLogger("IPKernelApp").addFilter(_DropPlainTcpNotice())
