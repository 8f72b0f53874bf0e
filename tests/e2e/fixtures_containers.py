"""Fixture parts for the containers layer: a container's view of the machine,
and the host's container engines, toolkit configs and CDI specs.

The files copy the shape of the NVIDIA Container Toolkit's own test data and
what its tools write (NVIDIA/nvidia-container-toolkit @d34b3046):
  CDI_SPEC        cmd/nvidia-ctk/cdi/generate/generate_test.go, "default" case
  TOOLKIT_CONFIG  api/config/v1/toml_test.go, "defaultConfig"
  CONTAINERD_V2   tests/container/shared/etc/containerd/config_v2.toml (trimmed)
                  + the runtime table `nvidia-ctk runtime configure
                  --runtime=containerd` adds (pkg/config/engine/containerd)
  DOCKER_DAEMON   tests/container/shared/etc/docker/daemon.json, + the runtime
                  `nvidia-ctk runtime configure --runtime=docker` adds
The container's own view (/proc/self/mountinfo with the injected libraries as
bind mounts, /proc/self/mounts with /dev/shm, /proc/self/limits) is what
docker run --gpus all shows on a real machine.
"""
import os

import fixtures
import fixtures_lower as fl
from gdtest import clean_env

LIBDIR = "usr/lib/x86_64-linux-gnu"

CDI_SPEC = """---
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
    - name: "0"
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: /dev/nvidia0
    - name: all
      containerEdits:
        deviceNodes:
            - path: /dev/nvidia0
              hostPath: /dev/nvidia0
containerEdits:
    env:
        - NVIDIA_CTK_LIBCUDA_DIR=/lib/x86_64-linux-gnu
        - NVIDIA_VISIBLE_DEVICES=void
    deviceNodes:
        - path: /dev/nvidiactl
          hostPath: /dev/nvidiactl
    hooks:
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - create-symlinks
            - --link
            - libcuda.so.1::/lib/x86_64-linux-gnu/libcuda.so
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - enable-cuda-compat
            - --host-driver-version={version}
          env:
            - NVIDIA_CTK_DEBUG=false
        - hookName: createContainer
          path: /usr/bin/nvidia-cdi-hook
          args:
            - nvidia-cdi-hook
            - update-ldcache
            - --folder
            - /lib/x86_64-linux-gnu
          env:
            - NVIDIA_CTK_DEBUG=false
    mounts:
        - hostPath: /lib/x86_64-linux-gnu/libcuda.so.{version}
          containerPath: /lib/x86_64-linux-gnu/libcuda.so.{version}
          options:
            - ro
            - nosuid
            - nodev
            - rbind
            - rprivate
        - hostPath: /lib/x86_64-linux-gnu/libnvidia-ml.so.{version}
          containerPath: /lib/x86_64-linux-gnu/libnvidia-ml.so.{version}
          options: [ro, nosuid, nodev, rbind, rprivate]
"""

TOOLKIT_CONFIG = """
#accept-nvidia-visible-devices-as-volume-mounts = false
#accept-nvidia-visible-devices-envvar-when-unprivileged = true
disable-require = false
supported-driver-capabilities = "compat32,compute,display,graphics,ngx,utility,video"
#swarm-resource = "DOCKER_RESOURCE_GPU"

[nvidia-container-cli]
#debug = "/var/log/nvidia-container-toolkit.log"
environment = []
#ldcache = "/etc/ld.so.cache"
ldconfig = "@/sbin/ldconfig.real"
load-kmods = true
#no-cgroups = false
#path = "/usr/bin/nvidia-container-cli"
#root = "/run/nvidia/driver"
#user = "root:video"

[nvidia-container-runtime]
#debug = "/var/log/nvidia-container-runtime.log"
log-level = "info"
mode = "auto"
runtimes = ["runc", "crun"]

[nvidia-container-runtime.modes]

[nvidia-container-runtime.modes.cdi]
annotation-prefixes = ["cdi.k8s.io/"]
default-kind = "nvidia.com/gpu"
spec-dirs = ["/etc/cdi", "/var/run/cdi"]

[nvidia-container-runtime.modes.csv]
mount-spec-path = "/etc/nvidia-container-runtime/host-files-for-container.d"

[nvidia-container-runtime.modes.legacy]
cuda-compat-mode = "ldconfig"

[nvidia-container-runtime-hook]
path = "nvidia-container-runtime-hook"
skip-mode-detection = false

[nvidia-ctk]
path = "nvidia-ctk"
"""

CONTAINERD_V2 = """disabled_plugins = []
oom_score = 0
root = "/var/lib/containerd"
state = "/run/containerd"
version = 2

[grpc]
  address = "/run/containerd/containerd.sock"
  max_recv_message_size = 16777216

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "k8s.gcr.io/pause:3.1"
    systemd_cgroup = false

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "{default}"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"
{nvidia}
    [plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]
      endpoint = ["https://registry-1.docker.io"]

[timeouts]
  "io.containerd.timeout.shim.cleanup" = "5s"
"""

CONTAINERD_NVIDIA_RUNTIME = """
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"
"""

DOCKER_DAEMON = """{
  "registry-mirrors": ["https://mirror.gcr.io"],
  "runtimes": {
    "nvidia": {
      "args": [],
      "path": "nvidia-container-runtime"
    }
  }
}
"""

ENV_KEYS = ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_REQUIRE_CUDA",
            "CUDA_VERSION", "NVIDIA_DISABLE_REQUIRE", "container", "KUBERNETES_SERVICE_HOST")


def env(**kw):
    """gpudoctor's environment without any container variable, plus kw."""
    e = clean_env()
    for k in ENV_KEYS:
        e.pop(k, None)
    e.update({k: str(v) for k, v in kw.items()})
    return e


def add_tool(r, name, d="usr/bin"):
    p = r.write(f"{d}/{name}", "#!/bin/sh\nexit 0\n")
    os.chmod(p, 0o755)


def mountinfo_line(i, path, source="/dev/root"):
    return f"{100 + i} 90 259:1 {path} {path} ro,nosuid,nodev,relatime master:1 - ext4 {source} rw\n"


def container_root(gpus=1, version=fixtures.DRIVER_VERSION, lib_version=None, injected=True,
                   libs=("libcuda.so", "libnvidia-ml.so"), nodes=True, shm="size=1048576k",
                   memlock="unlimited", devices_list="c 195:* rwm\nc 510:* rwm\n",
                   engine="docker", device_id=fixtures.H200_PCI_ID):
    """A healthy machine seen from inside a container started with --gpus all:
    the host's /sys and /proc (module `version`), /.dockerenv, the nodes, the
    driver libraries of lib_version bind-mounted (listed in mountinfo when
    injected), /dev/shm and memlock as given (None: no such file)."""
    r = fixtures.healthy_root(driver_version=version, gpus=gpus, device_id=device_id)
    lib_version = lib_version or version
    # the image has no driver of its own: only what the runtime mounted (the
    # healthy root's fake libraries, renamed to lib_version when asked)
    real = {}
    for f in sorted(os.listdir(r.p(LIBDIR))):
        for base in ("libcuda.so", "libnvidia-ml.so"):
            if f.startswith(base):
                if os.path.isfile(r.p(f"{LIBDIR}/{f}")) and not os.path.islink(r.p(f"{LIBDIR}/{f}")):
                    with open(r.p(f"{LIBDIR}/{f}"), "rb") as fh:
                        real[base] = fh.read()
                r.remove(f"{LIBDIR}/{f}")
    if not nodes:
        for f in os.listdir(r.p("dev")):
            if f.startswith("nvidia"):
                r.remove(f"dev/{f}")
    mi = ("22 1 0:50 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/docker/l\n"
          "23 22 0:52 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755\n")
    for i, base in enumerate(libs):
        path = f"/{LIBDIR}/{base}.{lib_version}"
        r.write(path.lstrip("/"), real.get(base, b"\x7fELF fixture\n"))
        r.symlink(f"{LIBDIR}/{base}.1", f"{base}.{lib_version}")
        if injected:
            mi += mountinfo_line(i, path)
    r.write("proc/self/mountinfo", mi)
    if engine == "docker":
        r.write(".dockerenv", "")
    elif engine == "podman":
        r.write("run/.containerenv", 'engine="podman-4.3.1"\nname="gd"\n')
    r.write("proc/1/cgroup", "0::/\n")
    if shm is not None:
        r.write("proc/self/mounts",
                "overlay / overlay rw,relatime 0 0\n"
                f"shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,{shm} 0 0\n")
    if memlock is not None:
        r.write("proc/self/limits",
                "Limit                     Soft Limit           Hard Limit           Units     \n"
                "Max cpu time              unlimited            unlimited            seconds   \n"
                f"Max locked memory         {memlock:<20} {memlock:<20} bytes     \n"
                "Max open files            1048576              1048576              files     \n")
    if devices_list is not None:
        r.write("sys/fs/cgroup/devices/devices.list", devices_list)
    return r


def host_root(version=fixtures.DRIVER_VERSION, docker=False, podman=False, kubelet=False,
              containerd=False, toolkit=False, hook=None, char_links=True, gpus=1):
    """A healthy host with the container engines and toolkit parts asked for."""
    r = fixtures.healthy_root(driver_version=version, gpus=gpus)
    if docker:
        add_tool(r, "dockerd")
        add_tool(r, "containerd")
    if podman:
        add_tool(r, "podman")
    if kubelet:
        add_tool(r, "kubelet")
        add_tool(r, "containerd")
    if containerd:
        add_tool(r, "containerd")
    if toolkit:
        for t in ("nvidia-ctk", "nvidia-container-cli", "nvidia-container-runtime"):
            add_tool(r, t)
        r.write("etc/nvidia-container-runtime/config.toml", TOOLKIT_CONFIG)
    if hook if hook is not None else toolkit:
        add_tool(r, "nvidia-container-runtime-hook")
    if char_links:
        add_char_links(r)
    return r


def add_char_links(r):
    for f in os.listdir(r.p("dev")):
        st = os.lstat(r.p(f"dev/{f}"))
        if f.startswith("nvidia") and (st.st_mode & 0o170000) == 0o020000:
            r.symlink(f"dev/char/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}", f"../{f}")


def cdi_spec(version=fixtures.DRIVER_VERSION):
    return CDI_SPEC.replace("{version}", version)


def add_host_libs_at_lib(r, version=fixtures.DRIVER_VERSION):
    """The CDI spec names /lib/x86_64-linux-gnu: on merged-/usr hosts a link
    (the fixture's /lib holds modules/, so the link is one level down)."""
    if not os.path.lexists(r.p("lib/x86_64-linux-gnu")):
        r.symlink("lib/x86_64-linux-gnu", "../usr/lib/x86_64-linux-gnu")


def add_kernel_version(r, version):
    """The loaded module's version as /sys and /proc show it."""
    r.write("sys/module/nvidia/version", version + "\n")
    with open(r.p("proc/driver/nvidia/version")) as fh:
        text = fh.read()
    import re
    r.write("proc/driver/nvidia/version", re.sub(r"\d+\.\d+\.\d+", version, text, count=1))
