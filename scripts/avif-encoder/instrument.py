"""Makes libaom's all-intra speed features switchable at run time, for speed-features.sh.

Edits av1/encoder/speed_features.c of a copy of libaom's source (the one libaom-sys bundles, 3.11.0):
every assignment that `cpu-used` 6 makes on top of 5 in all-intra mode gets a number, and the encoder
skips assignment N when bit N of the environment variable AOM_SF_KEEP is set, keeping cpu-used 5's value.
AOM_SF_LR=1|2|3 turns loop restoration back on (Wiener, self-guided, both), which libaom leaves off from
cpu-used 5. Nothing here changes what the service links.

    python3 instrument.py <libaom source dir>
"""
import pathlib
import sys

path = pathlib.Path(sys.argv[1]) / "av1/encoder/speed_features.c"
text = path.read_text()
if "AOM_SF_KEEP" in text:
    sys.exit(0)

switch = """
#include <stdlib.h>
static unsigned long long sf_keep_mask(void) {
  const char *mask = getenv("AOM_SF_KEEP");
  return mask ? strtoull(mask, NULL, 0) : 0;
}
#define SF6(n, stmt) do { if (!((sf_keep_mask() >> (n)) & 1)) { stmt; } } while (0)
"""
anchor = "// Qindex threshold levels used for selecting full-pel motion search."
assert text.count(anchor) == 1, "unexpected speed_features.c: not libaom 3.11?"
text = text.replace(anchor, switch + anchor)

# The framesize-independent block: one number per statement, in source order (0, 1, ...).
start = text.index("  if (speed >= 6) {\n    sf->intra_sf.prune_smooth_intra_mode_for_chroma = 1;")
end = text.index("  // The following should make all-intra mode speed 7 approximately equal", start)
lines, number, statement = [], 0, ""
for line in text[start:end].split("\n"):
    stripped = line.strip()
    if stripped.startswith("sf->") or statement:
        statement += (" " if statement else "") + stripped
        if statement.endswith(";"):
            lines.append(f"    SF6({number}, {statement[:-1]});")
            number, statement = number + 1, ""
        continue
    lines.append(line)
text = text[:start] + "\n".join(lines) + text[end:]

# The framesize-dependent block: 30 (auto max partition), 31 (min partition at 1080p), 32 (square only).
start = text.index("  if (speed >= 6) {\n    if (is_720p_or_larger) {\n      sf->part_sf.auto_max_partition_based_on_simple_motion")
end = text.index("  if (speed >= 7) {", start)
text = text[:start] + """  if (speed >= 6) {
    if (is_720p_or_larger) {
      SF6(30, sf->part_sf.auto_max_partition_based_on_simple_motion = NOT_IN_USE);
    } else if (is_480p_or_larger) {
      SF6(30, sf->part_sf.auto_max_partition_based_on_simple_motion = DIRECT_PRED);
    }
    if (is_1080p_or_larger) {
      SF6(31, sf->part_sf.default_min_partition_size = BLOCK_8X8);
    }
    SF6(32, sf->part_sf.use_square_partition_only_threshold = BLOCK_16X16);
  }

""" + text[end:]

restoration = """    if (speed >= 5) {
      sf->lpf_sf.disable_sgr_filter = true;
      sf->lpf_sf.disable_wiener_filter = true;
    }
  }
"""
assert text.count(restoration) == 1
text = text.replace(restoration, restoration + """  if (getenv("AOM_SF_LR")) {
    const int lr = atoi(getenv("AOM_SF_LR"));
    sf->lpf_sf.disable_wiener_filter = !(lr & 1);
    sf->lpf_sf.disable_sgr_filter = !(lr & 2);
  }
""")
path.write_text(text)
print(f"instrumented {number} framesize-independent cpu-used 6 features and 3 framesize-dependent ones")
