"""The PCIe platform around the GPUs (hardware layer): BAR1 from sysfs
`resource`, ACS on the switch ports between two GPUs from the bridges' config
space (extended capability 0x000D), the IOMMU mode.  The fixtures lay sysfs
out as Linux does: /sys/bus/pci/devices/<bdf> links into /sys/devices/pci0000:00/
<root port>/<switch upstream port>/<downstream port>/<gpu> (Linux
Documentation/PCI/sysfs-pci.rst); a config file holds 4096 bytes when root
reads it, 64 otherwise.  Remedy for ACS: NCCL's troubleshooting guide,
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html
Device ids other than the GPU's are arbitrary fixture values."""
import struct

from gdtest import GDTestCase, check, clean_env, assert_cause, assert_no_cause, finding
import fixtures
import fixtures_lower

ROOT_PORT, USP = "0000:00:01.0", "0000:01:00.0"
DSP = ("0000:02:08.0", "0000:02:10.0")
GPUS = ("0000:41:00.0", "0000:42:00.0")
BAR1_128G = 128 << 30
MEM64_PREF = 0x14220c
IORESOURCE_UNSET = 0x20000000


def resource(bar1_start=0x38000000000, bar1_size=BAR1_128G, bar1_flags=MEM64_PREF):
    """A GPU's sysfs resource: BAR0 (32-bit), BAR1 (64-bit pref, line 1; line 2
    its upper half), BAR3, BAR5 (I/O), ROM, then empty lines."""
    z = (0, 0, 0)
    bar1_end = bar1_start + bar1_size - 1 if bar1_size else 0
    lines = [(0xfa000000, 0xfaffffff, 0x40200), (bar1_start, bar1_end, bar1_flags), z,
             (0x38020000000, 0x38021ffffff, MEM64_PREF), z, (0xe000, 0xe07f, 0x40101),
             (0xfb000000, 0xfb07ffff, 0x46200)] + [z] * 6
    return "".join(f"0x{a:016x} 0x{b:016x} 0x{c:016x}\n" for a, b, c in lines)


def config(acs_ctl=None, length=4096):
    """A bridge's config space: AER at 0x100, then ACS (0x000D) at 0x148 when
    acs_ctl is not None; the Capability register offers SV, RR, CR, UF, TB."""
    c = bytearray(4096)
    c[0:4] = struct.pack("<HH", 0x10b5, 0x8747)
    next_off = 0x148 if acs_ctl is not None else 0
    c[0x100:0x104] = struct.pack("<I", 0x0001 | (1 << 16) | (next_off << 20))
    if acs_ctl is not None:
        c[0x148:0x14c] = struct.pack("<I", 0x000D | (1 << 16))
        c[0x14c:0x150] = struct.pack("<HH", 0x001f, acs_ctl)
    return bytes(c[:length])


def switch_root(acs_ctl=0x0000, cfg_len=4096, gpus=2, bar1=None):
    """Two GPUs behind one PCIe switch under one root port."""
    r = fixtures.healthy_root(gpus=0)
    fixtures_lower.add_kernel(r)
    fixtures_lower.add_device_nodes(r, gpus=gpus)
    real = "sys/devices/pci0000:00"
    for bdf, path in ((ROOT_PORT, f"{real}/{ROOT_PORT}"),
                      (USP, f"{real}/{ROOT_PORT}/{USP}"),
                      (DSP[0], f"{real}/{ROOT_PORT}/{USP}/{DSP[0]}"),
                      (DSP[1], f"{real}/{ROOT_PORT}/{USP}/{DSP[1]}")):
        r.write(f"{path}/vendor", "0x10b5\n")
        r.write(f"{path}/class", "0x060400\n")
        r.write(f"{path}/config", config(acs_ctl if bdf in DSP else None, cfg_len))
        r.symlink(f"sys/bus/pci/devices/{bdf}", "../../../devices/" + path[len("sys/devices/"):])
    for i in range(gpus):
        path = f"{real}/{ROOT_PORT}/{USP}/{DSP[i]}/{GPUS[i]}"
        r.mkdir(path)
        r.symlink(f"sys/bus/pci/devices/{GPUS[i]}", "../../../devices/" + path[len("sys/devices/"):])
        fixtures_lower._pci_fn(r, GPUS[i], 0x10de, 0x2335, 0x030200, driver="nvidia",
                               speed="32.0 GT/s PCIe", max_speed="32.0 GT/s PCIe", width=16,
                               max_width=16)
        r.write(f"{path}/resource", bar1 if bar1 is not None else resource())
        r.symlink(f"{path}/iommu_group", f"../../../../../../kernel/iommu_groups/{20 + i}")
        r.write(f"sys/kernel/iommu_groups/{20 + i}/type", "identity\n")
    r.mkdir("sys/class/iommu/dmar0")
    r.mkdir("sys/class/iommu/dmar1")
    r.write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro intel_iommu=on iommu=pt\n")
    return r


def env2():
    return clean_env(FAKE_NVML_GPUS="2", FAKE_CUDA_DEVICES="2")


class TestAcs(GDTestCase):
    def test_acs_redirect_between_two_gpus(self):
        doc = check(switch_root(acs_ctl=0x001d), env=env2())
        f = assert_cause(self, doc, "pcie-acs-blocks-p2p", "warn")
        self.assertTrue(any(DSP[0] in e and "ReqRedir+" in e for e in f["evidence"]), f)
        self.assertTrue(any(DSP[1] in e for e in f["evidence"]), f)
        self.assertIn(f"setpci -s {DSP[0]} ECAP_ACS+0x6.w=0000", f["fix"])
        br = {b["bdf"]: b for b in doc["inventory"]["pcie_bridges"]}
        self.assertEqual(br[DSP[0]]["acs_ctl"], "0x001d")
        self.assertIs(br[DSP[0]]["acs_p2p_request_redirect"], True)
        self.assertIs(br[USP]["acs"], False)

    def test_acs_on_an_nvswitch_system_names_what_it_still_slows(self):
        r = switch_root(acs_ctl=0x001d)
        fixtures_lower.add_nvswitches(r, count=2)
        doc = check(r, env=env2())
        f = assert_cause(self, doc, "pcie-acs-blocks-p2p", "warn")
        self.assertTrue(any("GPUDirect RDMA" in e for e in f["evidence"]), f)

    def test_source_validation_alone(self):
        doc = check(switch_root(acs_ctl=0x0001), env=env2())
        assert_cause(self, doc, "pcie-acs-blocks-p2p", "warn")

    def test_acs_off_is_ok(self):
        doc = check(switch_root(acs_ctl=0x0000), env=env2(), expect_rc=0)
        assert_no_cause(self, doc, "pcie-acs-blocks-p2p")
        f = finding(doc, fid="hardware.pcie-platform")
        self.assertTrue(any("ACS off on the switch ports between 1 GPU pair" in e
                            for e in f["evidence"]), f)
        self.assertEqual(doc["inventory"]["gpus"][0]["upstream_bridges"], [DSP[0], USP, ROOT_PORT])

    def test_only_other_bits_are_ok(self):
        # Translation Blocking and Upstream Forwarding do not redirect peer requests.
        doc = check(switch_root(acs_ctl=0x0012), env=env2(), expect_rc=0)
        assert_no_cause(self, doc, "pcie-acs-blocks-p2p")

    def test_one_gpu_behind_the_switch_is_not_judged(self):
        doc = check(switch_root(acs_ctl=0x001d, gpus=1), expect_rc=0)
        assert_no_cause(self, doc, "pcie-acs-blocks-p2p")

    def test_config_space_of_a_non_root_reader(self):
        doc = check(switch_root(acs_ctl=0x001d, cfg_len=64), env=env2(), expect_rc=0)
        assert_no_cause(self, doc, "pcie-acs-blocks-p2p")
        self.assertEqual(finding(doc, fid="hardware.pcie-acs")["status"], "skipped")
        self.assertIsNone(doc["inventory"]["pcie_bridges"][0]["acs"])


class TestBar1(GDTestCase):
    def test_bar1_and_iommu_reported(self):
        doc = check(switch_root(gpus=1), expect_rc=0)
        g = doc["inventory"]["gpus"][0]
        self.assertEqual(g["bar1"], {"size_mib": 131072, "assigned": True})
        self.assertEqual(g["iommu_group"], 20)
        self.assertEqual(g["iommu_group_type"], "identity")
        io = doc["inventory"]["iommu"]
        self.assertEqual((io["units"], io["groups"], io["cmdline"]), (2, 1, "intel_iommu=on iommu=pt"))
        f = finding(doc, fid="hardware.pcie-platform")
        self.assertEqual(f["status"], "ok")
        self.assertTrue(any("BAR1 128 GiB" in e and "GPU group type identity" in e
                            for e in f["evidence"]), f)
        assert_no_cause(self, doc, "pcie-bar1-unmapped")

    def test_h200_with_a_64bit_bar0_is_healthy(self):
        # The resource file of an H200 in a VM (read on 2026-12-01): BAR0 is
        # 64-bit, so BAR1 is on line 2 and line 1 is empty.  gpudoctor once
        # read line 1 and failed this healthy GPU with pcie-bar1-unmapped.
        h200 = ("0x0000104002000000 0x0000104002ffffff 0x000000000014220c\n"
                "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
                "0x0000100000000000 0x0000103fffffffff 0x000000000014220c\n"
                "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
                "0x0000104000000000 0x0000104001ffffff 0x000000000014220c\n"
                "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
                "0x0000000000000000 0x0000000000000000 0x0000000000000000\n")
        doc = check(switch_root(gpus=1, bar1=h200), "--upto", "hardware")
        assert_no_cause(self, doc, "pcie-bar1-unmapped")
        self.assertEqual(doc["inventory"]["gpus"][0]["bar1"]["assigned"], True)
        self.assertEqual(doc["inventory"]["gpus"][0]["bar1"]["size_mib"], 256 * 1024)

    def test_bar1_unassigned_all_zero(self):
        doc = check(switch_root(gpus=1, bar1=resource(bar1_start=0, bar1_size=0, bar1_flags=0)),
                    expect_rc=1)
        f = assert_cause(self, doc, "pcie-bar1-unmapped", "fail")
        self.assertIn("Above 4G Decoding", f["fix"])
        self.assertIs(doc["inventory"]["gpus"][0]["bar1"]["assigned"], False)

    def test_bar1_unset_keeps_its_size(self):
        doc = check(switch_root(gpus=1, bar1=resource(bar1_start=0,
                                                      bar1_flags=MEM64_PREF | IORESOURCE_UNSET)),
                    expect_rc=1)
        f = assert_cause(self, doc, "pcie-bar1-unmapped", "fail")
        self.assertTrue(any("128 GiB" in e for e in f["evidence"]), f)

    def test_plain_fixture_without_resource_is_quiet(self):
        doc = check(fixtures.healthy_root(), expect_rc=0)
        assert_no_cause(self, doc, "pcie-bar1-unmapped")
        self.assertIsNone(doc["inventory"]["gpus"][0]["bar1"]["assigned"])
