"""The wheel carries a native binary and no Python extension: tag it
py3-none-<platform> (any Python 3, one platform), not pure and not tied to
the CPython that built it.  auditwheel then turns linux_x86_64 into the
manylinux tag the binary's glibc symbol versions allow."""
from setuptools import setup
from setuptools.dist import Distribution

try:  # setuptools >= 70.1 has its own bdist_wheel
    from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
except ImportError:  # older: the wheel package's
    from wheel.bdist_wheel import bdist_wheel as _bdist_wheel


class BinaryDistribution(Distribution):
    """A platform wheel: the package goes to platlib, as auditwheel requires."""

    def has_ext_modules(self):
        return True


class bdist_wheel(_bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": bdist_wheel})
