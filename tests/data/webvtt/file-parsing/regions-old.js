assert_equals(cues.length, 2);

assert_equals(cues[0].region, null);
assert_equals(cues[1].region, null);
