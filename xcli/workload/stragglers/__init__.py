"""`xcli workload stragglers` and `xcli workload report`: which worker makes the others wait.

marks.py (every worker's arrival marks, as read: the VM runner's goodput.jsonl or the pods'
timestamped logs), verdict.py (the rule: lateness per window, k x MAD and a floor, chronic or
one-off, the time lost), gke.py (every pod's marks, bounded concurrency), html.py (the report
page), render.py (text). docs/stragglers.md defines every number.
"""
