#!/usr/bin/env bash
# compare-ingest.sh OLD_PROOFGLASS NEW_PROOFGLASS [WORKDIR]: ingests the same PDFs with two builds of the CLI (each with its
# proofglass-pdf-worker beside it) into fresh data directories and compares what they stored, by (document, page) so
# that unit ids assigned in a different order do not count: units (text, sizes, word boxes byte for byte,
# thumbnail hashes, CJK flag), thumbnail files, vectors, passages, ingest steps, full-text matches with their bm25
# scores for a set of terms, and `proofglass search --json` (hybrid and bm25) without unit ids, each query's results
# sorted and their fused scores compared as a set: units get their ids in the order pages finish extracting, which
# varies from run to run, and search breaks ties by id (two runs of one build differ there). Data: R-refman p. 1-200
# (a `mutool clean` copy), the CJK PDFs and two scanned PDFs (OCR with English). Exit status 1 on any difference.
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2")
work=${3:-$(mktemp -d)}
td=$(cd "$(dirname "$0")/../../shared/testdata/pdf" && pwd)
mkdir -p "$work"
[ -f "$work/R-refman-200.pdf" ] || mutool clean "$td/real/R-refman.pdf" "$work/R-refman-200.pdf" 1-200
sets=("text:$work/R-refman-200.pdf" "cjk:$td/cjk/zhlipsum.pdf $td/cjk/zhnumber.pdf" "scanned:$td/scanned/skew.pdf $td/scanned/linn.pdf")
queries=("linear model" "regression coefficients" "data frame" "数字" "中文" "sequencer" "the" "plot")
dump() { # dump DATA: every stored thing, by document name and page
	local db="$1/proofglass.db"
	sqlite3 -batch "$db" "SELECT d.name, u.ordinal, u.kind, u.width, u.height, u.t_start_ms, u.t_end_ms, u.text_source, u.cjk,
		hex(u.words), u.thumb_blob, u.image_blob, hex(u.text) FROM units u JOIN documents d ON d.id = u.document_id ORDER BY 1, 2"
	sqlite3 -batch "$db" "SELECT d.name, u.ordinal, v.embedder, v.modality, v.dim, hex(v.vec) FROM vectors v JOIN units u ON u.id = v.unit_id
		JOIN documents d ON d.id = u.document_id ORDER BY 1, 2, 3, 4"
	sqlite3 -batch "$db" "SELECT d.name, u.ordinal, p.embedder, p.ordinal, p.start, p.end, p.dim, hex(p.vec) FROM passages p
		JOIN units u ON u.id = p.unit_id JOIN documents d ON d.id = u.document_id ORDER BY 1, 2, 3, 4"
	sqlite3 -batch "$db" "SELECT d.name, s.ordinal, s.stage, s.status, s.error FROM ingest_steps s JOIN documents d ON d.id = s.document_id ORDER BY 1, 2, 3"
	sqlite3 -batch "$db" "SELECT name, kind, pages, status, sha256, meta FROM documents ORDER BY name"
	for q in "${queries[@]}"; do
		local fq="\"${q//\"/\"\"}\""
		sqlite3 -batch "$db" "SELECT '$q', d.name, u.ordinal, printf('%.9g', bm25(units_fts)) FROM units_fts f JOIN units u ON u.id = f.rowid
			JOIN documents d ON d.id = u.document_id WHERE units_fts MATCH '$fq' ORDER BY 2, 3" 2>&1
		sqlite3 -batch "$db" "SELECT '$q', d.name, u.ordinal FROM units_fts_cjk f JOIN units u ON u.id = f.rowid
			JOIN documents d ON d.id = u.document_id WHERE units_fts_cjk MATCH '$fq' ORDER BY 2, 3" 2>&1
	done
	(cd "$1/blobs" && find . -type f -not -path './tmp/*' -printf '%p %s\n' | sort)
}
search() { # search BIN DATA: results of every query without unit ids
	for q in "${queries[@]}"; do
		for mode in hybrid bm25; do
			echo "== $mode $q"
			out=$(PROOFGLASS_DATA=$2 "$1" search --json --k 20 --mode "$mode" "$q" 2>/dev/null | sed -E 's/"unit_id":[0-9]+,//g' || true)
			# Results without their fused score, sorted; then the scores, sorted (pages tied in one ranking swap
			# ranks, and so fused scores, with their ids).
			sed -E 's/"score":[^,]*,//' <<<"$out" | sort
			grep -oE '"score":[^,]*' <<<"$out" | sort || true
		done
	done
}
status=0
for s in "${sets[@]}"; do
	name=${s%%:*} files=${s#*:}
	for v in old new; do
		bin=$old; [ "$v" = new ] && bin=$new
		rm -rf "$work/$name-$v"
		# shellcheck disable=SC2086
		PROOFGLASS_DATA="$work/$name-$v" "$bin" add --collection "$name" $files >"$work/$name-$v.add" 2>&1
		dump "$work/$name-$v" >"$work/$name-$v.dump"
		search "$bin" "$work/$name-$v" >"$work/$name-$v.search"
	done
	for f in dump search; do
		if cmp -s "$work/$name-old.$f" "$work/$name-new.$f"; then
			echo "$name $f: identical ($(wc -l <"$work/$name-new.$f") lines)"
		else
			echo "$name $f: DIFFERENT (diff $work/$name-old.$f $work/$name-new.$f)"
			status=1
		fi
	done
done
exit $status
