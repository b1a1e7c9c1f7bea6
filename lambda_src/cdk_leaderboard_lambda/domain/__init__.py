"""The rules, the formats and the stores' ports: boards, periods, scores, ranks, the log, cursors, tokens."""
