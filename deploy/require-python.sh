#!/bin/sh
# deploy/require-python.sh PYTHON: exit 0 when PYTHON is Python 3.11 or newer; else one line saying what to
# do, and exit 1. `make` and deploy/install.sh run it before they build a virtualenv with PYTHON.
python=${1:?usage: deploy/require-python.sh PYTHON}
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || {
    echo "Pommel needs Python 3.11 or newer, and '$python' does not run: install Python 3.11+ and name it with PYTHON=python3.11" >&2
    exit 1
}
case $version in
    3.1[1-9] | 3.[2-9][0-9] | [4-9].*) ;;
    *)
        echo "Pommel needs Python 3.11 or newer, and '$python' is Python $version: install Python 3.11+ and name it with PYTHON=python3.11" >&2
        exit 1
        ;;
esac
