#!/usr/bin/env bash
# A peer's observation: the shell pipeline of Anthropic's computer-use
# reference tool. A full-screen scrot to a PNG file, ImageMagick scaling it
# to the 1366x768 the model is sent, and the base64 text of the result.
set -euo pipefail
shot=$(mktemp -u --suffix=.png)
trap 'rm -f "$shot"' EXIT
scrot --pointer "$shot"
convert "$shot" -resize '1366x768!' "$shot"
base64 --wrap=0 "$shot" >/dev/null
