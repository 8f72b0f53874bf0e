#!/bin/sh
# pip-served.sh - print the facts.tsv rows of what pip serves today for the
# packages whose requirement is a range (the newest nvidia-cudnn of each CUDA
# major, and the newest before 9.11, the last cuDNN with code for CC < 7.5).
# Read from the registry with pip itself; paste the rows into facts.tsv and
# set its "# as-of:" date to today.
#	sh src/knowledge/data/pip-served.sh
set -eu
for pkg in nvidia-cudnn-cu12 nvidia-cudnn-cu13; do
	list=$(pip index versions "$pkg" 2>/dev/null | sed -n 's/^Available versions: //p' | tr -d ' ' | tr ',' '\n')
	newest=$(printf '%s\n' "$list" | head -1)
	printf 'pip.newest.%s\t%s\tpypi:%s\n' "$pkg" "$newest" "$pkg"
	pre=$(printf '%s\n' "$list" | awk -F. '$1 == 9 && $2 <= 10' | head -1)
	[ -n "$pre" ] && printf 'pip.cudnn_pre_turing.%s\t%s\tpypi:%s;cudnn-911-preturing\n' "$pkg" "$pre" "$pkg"
	below9=$(printf '%s\n' "$list" | awk -F. '$1 == 8' | head -1)
	[ -n "$below9" ] && printf 'pip.newest.%s.8\t%s\tpypi:%s\n' "$pkg" "$below9" "$pkg"
done
echo "# as-of: $(date -u +%Y-%m-%d)"
