"""Named evidence sets of explain's rules (src/explain/logrules.h): '#@evset' lines of
src/knowledge/data/explain.tsv, written '@name' in a cause's condition.  The embedded table
defines each set once and uses every one; no row copies a set's literals back; a --kb table
with an unknown, self-referring or huge set is refused with a message, never a crash."""
import os
import shutil
import tempfile
import unittest

from gdtest import GDTestCase, REPO, run

RULES = os.path.join(REPO, "src", "knowledge", "data", "explain.tsv")
WSL_LOG = "Linux version 5.15.153.1-microsoft-standard-WSL2\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n"


def table():
    sets, conds = {}, []
    for line in open(RULES, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#@evset\t"):
            c = line.split("\t")
            sets[c[1]] = c[2]
        elif line.startswith("#@beside\t"):
            # a sibling's conditions, written once for every row that names its cause
            c = line.split("\t")
            for x in c[2].split(";"):
                for cond in x.split("?")[1:]:
                    conds.append(("#@beside " + c[1], cond.lstrip("+!")))
        elif line and not line.startswith(("#", "id\t")):
            c = line.split("\t")
            for x in c[7].split(";"):
                # "id?lits" and a guess's exception "id?lits?!lits" (logrules.h)
                for cond in x.split("?")[1:]:
                    conds.append((c[0], cond.lstrip("+!")))
    return sets, conds


class EvidenceSets(GDTestCase):
    def test_every_set_is_defined_once_and_used(self):
        sets, conds = table()
        self.assertGreaterEqual(len(sets), 8)
        used = {lit[1:] for _, c in conds for lit in c.split("|") if lit.startswith("@")}
        # read by explain.c, not by a condition: the numbering of cudaError_t numbers (errcodes.h)
        used |= {"cudart-old", "cudart-new"}
        self.assertEqual(sorted(used - set(sets)), [], "conditions name undefined sets")
        self.assertEqual(sorted(set(sets) - used), [], "sets no condition uses")

    def test_no_row_copies_a_set(self):
        # a condition holding every literal of a set is a copy that will drift
        sets, conds = table()
        for rule, c in conds:
            lits = set(c.split("|"))
            for name, s in sets.items():
                self.assertFalse(set(s.split("|")) <= lits,
                                 f"{rule}: '{c}' copies @{name}; write @{name}")

    def kb(self, head, causes):
        d = tempfile.mkdtemp(prefix="gd-evset-")
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "explain.tsv"), "w", encoding="utf-8") as f:
            f.write(head + "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"
                    "r\t1\tcause\tlit\tNVIDIA-SMI has failed\t-\t-\t" + causes + "\t-\tsays\tsrc\n")
        log = os.path.join(d, "log.txt")
        with open(log, "w") as f:
            f.write(WSL_LOG)
        return run(["--kb", d, "explain", "--no-live", "--json", log])

    def test_a_set_from_a_kb_table_works(self):
        rc, out, err = self.kb("#@evset\twsl2\tmicrosoft-standard\twhy\n",
                               "nvidia-module-not-loaded?!@wsl2;wsl-linux-driver-in-wsl?+@wsl2")
        self.assertEqual(rc, 0, err)
        self.assertIn('"wsl-linux-driver-in-wsl"', out)
        self.assertNotIn('"nvidia-module-not-loaded"', out)

    def test_near_miss_the_set_not_in_the_log(self):
        rc, out, err = self.kb("#@evset\tother\tno such words\twhy\n",
                               "nvidia-module-not-loaded?!@other;wsl-linux-driver-in-wsl?+@other")
        self.assertEqual(rc, 0, err)
        self.assertIn('"nvidia-module-not-loaded"', out)
        self.assertNotIn('"wsl-linux-driver-in-wsl"', out)

    def test_unknown_set_is_a_load_error_naming_row_and_set(self):
        rc, out, err = self.kb("", "nouveau-loaded?@nosuchset")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("rule r", err)
        self.assertIn("@nosuchset", err)

    def test_a_guess_exception_drops_the_guess(self):
        # "id?lits?!lits": the guess's own evidence is in the log, and so is its exception
        rc, out, err = self.kb("", "nouveau-loaded?microsoft-standard?!wsl2;gpu-lost?+wsl2")
        self.assertEqual(rc, 0, err)
        self.assertNotIn('"nouveau-loaded"', out)
        self.assertIn('"gpu-lost"', out)

    def test_near_miss_no_exception_in_the_log(self):
        rc, out, err = self.kb("", "nouveau-loaded?microsoft-standard?!no such words;gpu-lost?+no such words")
        self.assertEqual(rc, 0, err)
        self.assertIn('"nouveau-loaded"', out)
        self.assertNotIn('"gpu-lost"', out)

    def test_an_exception_after_an_if(self):
        rc, out, err = self.kb("", "nouveau-loaded?+microsoft-standard?!wsl2;gpu-lost?+wsl2")
        self.assertEqual(rc, 0, err)
        self.assertNotIn('"nouveau-loaded"', out)

    def test_an_exception_only_after_a_guess(self):
        for causes in ("nouveau-loaded?!wsl2?!x", "nouveau-loaded?wsl2?+x",
                       "nouveau-loaded?wsl2?!x?!y", "nouveau-loaded?wsl2?!"):
            rc, out, err = self.kb("", causes)
            self.assertEqual(rc, 2, causes + ": " + out + err)
            self.assertIn("rule r", err)

    def test_hostile_sets_are_refused(self):
        for head in ("#@evset\thuge\t" + "|".join("x%d" % i for i in range(100000)) + "\tw\n",
                     "#@evset\t" + "a" * 100000 + "\tx\tw\n",
                     "#@evset\tloop\t@loop\tw\n",
                     "#@evset\tbad\tx;gpu-lost\tw\n",
                     "".join("#@evset\ts%d\tx\tw\n" % i for i in range(1000))):
            rc, out, err = self.kb(head, "nouveau-loaded?@huge|@loop|@bad|@s0")
            self.assertEqual(rc, 2, err[:300])
            self.assertIn("evidence set", err)
            self.assertLess(len(err), 4096)


if __name__ == "__main__":
    unittest.main()
