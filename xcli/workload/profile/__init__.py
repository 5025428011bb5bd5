"""`xcli workload profile` and `xcli workload stacks` where they meet a cluster: the hosts of a
running workload (VM record or JobSet pods) and the live handlers of the capture steps."""
