assert_equals(cues.length, 5);
assert_equals(cues[0].id, " leading space");
assert_equals(cues[1].id, "trailing space ");
assert_equals(cues[2].id, "-- >");
assert_equals(cues[3].id, "->");
assert_equals(cues[4].id, " ");
