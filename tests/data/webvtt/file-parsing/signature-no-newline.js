assert_equals(cues.length, 0);
