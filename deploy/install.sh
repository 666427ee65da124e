#!/bin/sh
# deploy/install.sh VENV: install Pommel from this checkout into the virtualenv VENV (made if missing) the
# way a server runs it: a built wheel and its dependencies, no test tools. The Docker image runs this
# script; tests/e2e/test_install.py runs it too, so what the image runs is what is tested.
# PYTHON (default python3) makes the virtualenv; it must be Python 3.11 or newer.
set -eu
venv=${1:?usage: deploy/install.sh VENV}
checkout=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ] || ! sh "$checkout/deploy/require-python.sh" "$venv/bin/python" 2>/dev/null; then
    sh "$checkout/deploy/require-python.sh" "$python"
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
# The wheel is built from a clean copy: setuptools would reuse a stale build/ of the checkout (a module
# since removed would ship again) and leave build/ and pommel.egg-info/ behind.
mkdir "$wheels/source"
tar -C "$checkout" --exclude=./.git --exclude=./.venv --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$wheels/source" -xf -
"$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$wheels/dist" \
    "$wheels/source"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheels"/dist/pommel-*.whl
"$venv/bin/pommel" --version
