# Everything is declared in setup.cfg; this file lets older pip / setuptools build the package
# offline (pip install --no-index --no-build-isolation integrations/watcher).
from setuptools import setup

setup()
