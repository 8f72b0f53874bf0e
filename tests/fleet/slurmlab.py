"""A real single-node Slurm cluster (munged, slurmctld, slurmd from Debian) in a
temporary directory, for the health tests.

Everything listens on 127.0.0.1 only (CommunicationParameters NoCtldInAddrAny
and NoInAddrAny, NodeAddr 127.0.0.1) on ports chosen free at start; munged
uses its own socket and key; the daemons run in the foreground as children
of the test and are killed by stop().

    with SlurmLab(health_program="/path/to/wrapper", interval=5) as lab:
        lab.sinfo_reason()        # the node's drain reason, "" when none
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

NODE = "gdnode"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def missing_tools():
    need = ["munged", "slurmctld", "slurmd", "scontrol", "sinfo"]
    return [t for t in need if not shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin")]


class SlurmLab:
    def __init__(self, health_program=None, interval=5):
        self.dir = tempfile.mkdtemp(prefix="gd-slurm-")
        self.health_program = health_program
        self.interval = interval
        self.procs = []
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def p(self, *parts):
        return os.path.join(self.dir, *parts)

    # -- setup ---------------------------------------------------------
    def _munge(self):
        os.makedirs(self.p("munge"), mode=0o700)
        key = self.p("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = self.p("munge", "munge.socket")
        munged = shutil.which("munged", path="/usr/sbin:/usr/bin")
        self._start([munged, "-F", "--force", "--key-file", key, "--socket", self.munge_socket,
                     "--pid-file", self.p("munge", "munged.pid"),
                     "--log-file", self.p("munge", "munged.log"),
                     "--seed-file", self.p("munge", "munged.seed")], "munged.out")
        self._wait(lambda: os.path.exists(self.munge_socket), "munged socket")

    def _write_conf(self):
        for d in ("state", "spool", "log"):
            os.makedirs(self.p(d))
        self.ctld_port, self.slurmd_port = free_port(), free_port()
        lines = [
            "ClusterName=gdtest",
            f"SlurmctldHost={self.host}(127.0.0.1)",
            f"SlurmctldPort={self.ctld_port}",
            f"SlurmdPort={self.slurmd_port}",
            "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={self.p('state')}",
            f"SlurmdSpoolDir={self.p('spool')}",
            f"SlurmctldPidFile={self.p('slurmctld.pid')}",
            f"SlurmdPidFile={self.p('slurmd.pid')}",
            f"SlurmctldLogFile={self.p('log', 'slurmctld.log')}",
            f"SlurmdLogFile={self.p('log', 'slurmd.log')}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/linear",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "ReturnToService=2",
            "SlurmdTimeout=60",
            "MessageTimeout=5",
            "PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm",
            # Asked for by `scontrol reboot`; the test stops at "requested".
            "RebootProgram=/bin/false",
            "ResumeTimeout=600",
        ]
        if self.health_program:
            lines += [f"HealthCheckProgram={self.health_program}",
                      f"HealthCheckInterval={self.interval}",
                      "HealthCheckNodeState=ANY"]
        lines += [f"NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={self.host} CPUs=1 State=UNKNOWN",
                  f"PartitionName=gd Nodes={NODE} Default=YES MaxTime=INFINITE State=UP"]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        # Slurm 22.05 wants a cgroup.conf only with cgroup plugins; none here.

    def _start(self, argv, out):
        f = open(self.p(out), "wb")
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def _wait(self, pred, what, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if pred():
                return
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{what}: {proc.args[0]} exited {proc.returncode}\n"
                                       + self.logs())
            time.sleep(0.2)
        raise RuntimeError(f"timed out waiting for {what}\n" + self.logs())

    def logs(self):
        out = []
        for root, _, files in os.walk(self.dir):
            for name in files:
                if name.endswith((".log", ".out")):
                    with open(os.path.join(root, name), errors="replace") as f:
                        out.append(f"--- {name}\n" + f.read()[-3000:])
        return "\n".join(out)

    def start(self):
        self._munge()
        self._write_conf()
        self._start(["slurmctld", "-D", "-i", "-f", self.conf], "slurmctld.out")
        self._wait(lambda: self.run("scontrol", "ping").returncode == 0 and
                   "UP" in self.run("scontrol", "ping").stdout, "slurmctld")
        self._start(["slurmd", "-D", "-N", NODE, "-f", self.conf], "slurmd.out")
        self._wait(lambda: self.state() and "UNKNOWN" not in self.state()
                   and "*" not in self.state(), "slurmd registration", timeout=40)
        return self

    # -- queries -------------------------------------------------------
    def run(self, *argv, check=False):
        return subprocess.run(list(argv), capture_output=True, text=True, env=self.env,
                              timeout=20, check=check)

    def show_node(self):
        return self.run("scontrol", "-o", "show", "node", NODE).stdout

    def state(self):
        for tok in self.show_node().split():
            if tok.startswith("State="):
                return tok[6:]
        return ""

    def sinfo_reason(self):
        """The node's reason as `sinfo -R` lists it ("" when not listed)."""
        out = self.run("sinfo", "-R", "-h", "-N", "-o", "%N|%E").stdout
        for line in out.splitlines():
            node, _, reason = line.partition("|")
            if node.strip() == NODE:
                return reason.strip()
        return ""

    def wait_for(self, pred, what, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if pred():
                return True
            time.sleep(0.5)
        raise AssertionError(f"timed out waiting for {what}: state {self.state()!r}, "
                             f"reason {self.sinfo_reason()!r}\n" + self.logs())

    # -- teardown ------------------------------------------------------
    def stop(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        self.procs = []

    def cleanup(self):
        self.stop()
        if not os.environ.get("GD_KEEP_FIXTURES"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.cleanup()
            raise

    def __exit__(self, *exc):
        self.cleanup()
