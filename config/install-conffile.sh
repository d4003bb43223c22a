#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# install-conffile.sh EXAMPLE TARGET: meson install's step for a file the
# operator edits (config/meson.build). EXAMPLE, just installed, is copied to
# TARGET (both under $DESTDIR) unless TARGET exists: an edited configuration
# survives every reinstall, as dpkg keeps a conffile, and the message names
# the new example to compare it with.
set -eu

example=${DESTDIR:-}$1
target=${DESTDIR:-}$2

if [ -e "$target" ] || [ -L "$target" ]; then
	echo "Keeping $target (the example of this version: $example)"
	exit 0
fi
mkdir -p "$(dirname "$target")"
# a new file is 0644 whatever the installer's umask: the service reads it as
# root, an operator reads it to see what runs
cp "$example" "$target.tmp.$$"
chmod 0644 "$target.tmp.$$"
mv "$target.tmp.$$" "$target"
[ -n "${MESON_INSTALL_QUIET:-}" ] || echo "Installing $target"
