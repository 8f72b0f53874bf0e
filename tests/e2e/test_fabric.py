"""NVSwitch systems (HGX/DGX): the NVIDIA Fabric Manager must run at the
driver's exact version, and NVML must report the GPUs' fabric registration
completed.  Fixture layout from NVIDIA's Fabric Manager user guide
(https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html):
/usr/bin/nv-fabricmanager, the nvidia-fabricmanager systemd unit, the Ubuntu
package nvidia-fabricmanager-<branch> in dpkg's status database; NVSwitches are
PCI bridges of class 0x068000 (vendor 0x10de, 22a3 as on HGX H100/H200).  The
fabric state comes through the fake NVML (FAKE_NVML_FABRIC=state:status)."""
from gdtest import GDTestCase, check, clean_env, assert_cause, assert_no_cause, finding
import fixtures
import fixtures_lower

DRV = fixtures.DRIVER_VERSION
FM_CAUSES = ("fabric-manager-not-running", "fabric-manager-version-mismatch")


def dpkg_entry(pkg, version, status="install ok installed"):
    return (f"Package: {pkg}\nStatus: {status}\nPriority: optional\nSection: multiverse/libs\n"
            f"Architecture: amd64\nVersion: {version}\nDescription: Fabric Manager for NVSwitch based systems.\n")


def nvswitch_root(fm=True, fm_version=DRV, running=True, imex=False):
    """An HGX-like machine: 8 H200 GPUs are not needed for the fabric checks,
    one is enough; 4 NVSwitches and their /dev nodes."""
    r = fixtures.healthy_root()
    fixtures_lower.add_nvswitches(r, count=4)
    for i in range(4):
        r.write(f"dev/nvidia-nvswitch{i}", "")
    r.write("dev/nvidia-nvswitchctl", "")
    status = dpkg_entry("libc6", "2.39-0ubuntu8")
    if fm:
        r.write("usr/bin/nv-fabricmanager", "#!/bin/sh\n", mode=0o755)
        r.write("lib/systemd/system/nvidia-fabricmanager.service",
                "[Unit]\nDescription=NVIDIA fabric manager service\n[Service]\n"
                "ExecStart=/usr/bin/nvidia-fabricmanager-start.sh --mode start\n")
        r.symlink("etc/systemd/system/multi-user.target.wants/nvidia-fabricmanager.service",
                  "/lib/systemd/system/nvidia-fabricmanager.service")
        status += "\n" + dpkg_entry("nvidia-fabricmanager-580", f"{fm_version}-0ubuntu0.24.04.1")
        status += "\n" + dpkg_entry("nvidia-fabricmanager-dev-580", "570.00.00-1")
    r.write("var/lib/dpkg/status", status)
    r.write("proc/1/comm", "systemd\n")
    if fm and running:
        r.write("proc/2741/comm", "nv-fabricmanage\n")
    if imex:
        r.write("usr/bin/nvidia-imex", "#!/bin/sh\n", mode=0o755)
        r.write("proc/2800/comm", "nvidia-imex\n")
        r.write("dev/nvidia-caps-imex-channels/channel0", "")
    return r


class TestFabric(GDTestCase):
    def fm(self, doc):
        return doc["inventory"]["driver"]["fabric_manager"]

    def test_plain_machine_is_quiet(self):
        doc = check(fixtures.healthy_root(), expect_rc=0)
        for c in FM_CAUSES:
            assert_no_cause(self, doc, c)
        self.assertIsNone(finding(doc, fid="driver.fabricmanager"))
        self.assertIsNone(self.fm(doc)["binary"])

    def test_healthy_nvswitch_system(self):
        doc = check(nvswitch_root(imex=True), env=clean_env(FAKE_NVML_FABRIC="3:0"), expect_rc=0)
        for c in FM_CAUSES:
            assert_no_cause(self, doc, c)
        f = finding(doc, fid="driver.fabricmanager")
        self.assertEqual(f["status"], "ok", f)
        self.assertTrue(any("IMEX: nvidia-imex running" in e for e in f["evidence"]), f)
        fm = self.fm(doc)
        self.assertEqual(fm["version"], DRV)
        self.assertEqual(fm["package"], "nvidia-fabricmanager-580")
        self.assertEqual(fm["pid"], 2741)
        self.assertEqual(fm["nvswitch_nodes"], 4)
        self.assertIs(fm["imex"]["channels"], True)
        self.assertEqual(doc["inventory"]["driver"]["nvml"]["gpus"][0]["fabric_state"], 3)

    def test_not_installed(self):
        doc = check(nvswitch_root(fm=False), env=clean_env(FAKE_NVML_FABRIC="1:0"), expect_rc=1)
        f = assert_cause(self, doc, "fabric-manager-not-running", "fail")
        self.assertIn("nvidia-fabricmanager-580", f["fix"])
        self.assertTrue(any("state 1 (not started)" in e for e in f["evidence"]), f)

    def test_installed_not_running(self):
        doc = check(nvswitch_root(running=False), expect_rc=1)
        f = assert_cause(self, doc, "fabric-manager-not-running", "fail")
        self.assertIn("systemctl enable --now nvidia-fabricmanager", f["fix"])

    def test_version_mismatch(self):
        doc = check(nvswitch_root(fm_version="580.82.07"), env=clean_env(FAKE_NVML_FABRIC="1:0"),
                    expect_rc=1)
        f = assert_cause(self, doc, "fabric-manager-version-mismatch", "fail")
        self.assertIn("580.82.07", f["title"])
        assert_no_cause(self, doc, "fabric-manager-not-running")

    def test_running_but_fabric_not_set_up(self):
        doc = check(nvswitch_root(), env=clean_env(FAKE_NVML_FABRIC="3:9"), expect_rc=1)
        f = assert_cause(self, doc, "fabric-manager-not-running", "fail")
        self.assertTrue(any("status 9" in e for e in f["evidence"]), f)

    def test_processes_not_visible_is_not_a_verdict(self):
        # Without /proc (a tree copied from another machine) whether it runs is unknown.
        r = nvswitch_root(running=False)
        r.remove("proc")
        doc = check(r, env=clean_env(FAKE_NVML_FABRIC="3:0"), expect_rc=0)
        assert_no_cause(self, doc, "fabric-manager-not-running")
        self.assertEqual(finding(doc, fid="driver.fabricmanager")["status"], "skipped")
        self.assertIsNone(self.fm(doc)["pid"])

    def test_gpu_operator_driver_container(self):
        # Fabric Manager inside the GPU Operator's driver container: its root is
        # /run/nvidia/driver on the host, its process is in the host's /proc.
        r = nvswitch_root(fm=False)
        r.write("run/nvidia/driver/usr/bin/nv-fabricmanager", "#!/bin/sh\n", mode=0o755)
        r.write("run/nvidia/driver/var/lib/dpkg/status", dpkg_entry("nvidia-fabricmanager-580", DRV + "-1"))
        r.write("proc/3100/comm", "nv-fabricmanage\n")
        doc = check(r, env=clean_env(FAKE_NVML_FABRIC="3:0"), expect_rc=0)
        for c in FM_CAUSES:
            assert_no_cause(self, doc, c)
        fm = self.fm(doc)
        self.assertEqual(fm["binary"], "/run/nvidia/driver/usr/bin/nv-fabricmanager")
        self.assertEqual((fm["version"], fm["pid"]), (DRV, 3100))

    def test_hostile_package_name_is_quoted(self):
        r = nvswitch_root(fm_version="580.82.07")
        r.write("var/lib/dpkg/status",
                dpkg_entry("nvidia-fabricmanager-580$(touch /tmp/gd-pwned)", "580.82.07-1"))
        doc = check(r, expect_rc=1)
        f = assert_cause(self, doc, "fabric-manager-version-mismatch", "fail")
        self.assertIn("'nvidia-fabricmanager-580$(touch /tmp/gd-pwned)'", f["fix"])

    def test_dev_package_alone_is_not_fabric_manager(self):
        r = nvswitch_root(fm=False)
        r.write("var/lib/dpkg/status", dpkg_entry("nvidia-fabricmanager-dev-580", DRV + "-1"))
        doc = check(r)
        self.assertIsNone(self.fm(doc)["version"])
        assert_cause(self, doc, "fabric-manager-not-running")
