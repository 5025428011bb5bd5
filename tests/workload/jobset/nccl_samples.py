# ruff: noqa: E501, W291  (nccl-tests output, kept exactly as the tool prints it)
"""Representative nccl-tests output (all_gather_perf, 2 nodes x 8 GPUs, -b 1K -e 8G -f 2 -c 1), in
the format nccl-tests prints (https://github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md): a
header, one row per size with out-of-place and in-place time/algbw/busbw/#wrong, then the
out-of-bounds and average lines. The numbers are made up: an A3 High near its published
~71 GB/s, the same machine after NCCL fell back to TCP sockets on eth0, and a run whose
correctness check found wrong values.
"""

GPUDIRECT = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid     61 on xcli-network-test-workers-0-0 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid     62 on xcli-network-test-workers-0-0 device  1 [0x05] NVIDIA H100 80GB HBM3
#  Rank  8 Group  0 Pid     48 on xcli-network-test-workers-0-1 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank 15 Group  0 Pid     55 on xcli-network-test-workers-0-1 device  7 [0xc4] NVIDIA H100 80GB HBM3
xcli-network-test-workers-0-0:61:61 [0] NCCL INFO NET/GPUDirectTCPX ver. 3.1.9.
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
        1024            16     float    none      -1    40.01    0.03    0.02      0    39.89    0.03    0.02      0
        2048            32     float    none      -1    40.03    0.05    0.05      0    39.91    0.05    0.05      0
        4096            64     float    none      -1    40.05    0.10    0.10      0    39.93    0.10    0.10      0
        8192           128     float    none      -1    40.11    0.20    0.19      0    39.99    0.20    0.19      0
       16384           256     float    none      -1    40.21    0.41    0.38      0    40.09    0.41    0.38      0
       32768           512     float    none      -1    40.43    0.81    0.76      0    40.31    0.81    0.76      0
       65536          1024     float    none      -1    40.85    1.60    1.50      0    40.73    1.61    1.51      0
      131072          2048     float    none      -1    41.71    3.14    2.95      0    41.58    3.15    2.96      0
      262144          4096     float    none      -1    43.41    6.04    5.66      0    43.28    6.06    5.68      0
      524288          8192     float    none      -1    46.83   11.20   10.50      0    46.69   11.23   10.53      0
     1048576         16384     float    none      -1    53.65   19.54   18.32      0    53.49   19.60   18.38      0
     2097152         32768     float    none      -1    67.31   31.16   29.21      0    67.10   31.25   29.30      0
     4194304         65536     float    none      -1    94.61   44.33   41.56      0    94.33   44.46   41.69      0
     8388608        131072     float    none      -1   149.23   56.21   52.70      0   148.78   56.38   52.86      0
    16777216        262144     float    none      -1   258.45   64.91   60.86      0   257.68   65.11   61.04      0
    33554432        524288     float    none      -1   476.91   70.36   65.96      0   475.48   70.57   66.16      0
    67108864       1048576     float    none      -1   913.81   73.44   68.85      0   911.07   73.66   69.06      0
   134217728       2097152     float    none      -1  1787.63   75.08   70.39      0  1782.26   75.31   70.60      0
   268435456       4194304     float    none      -1  3535.25   75.93   71.19      0  3524.65   76.16   71.40      0
   536870912       8388608     float    none      -1  7030.51   76.36   71.59      0  7009.42   76.59   71.81      0
  1073741824      16777216     float    none      -1    14021   76.58   71.79      0    13979   76.81   72.01      0
  2147483648      33554432     float    none      -1    28002   76.69   71.90      0    27918   76.92   72.11      0
  4294967296      67108864     float    none      -1    55964   76.75   71.95      0    55796   76.98   72.17      0
  8589934592     134217728     float    none      -1   111888   76.77   71.97      0   111552   77.00   72.19      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 35.9023 
#
"""

TCP_FALLBACK = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid     61 on xcli-network-test-workers-0-0 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid     62 on xcli-network-test-workers-0-0 device  1 [0x05] NVIDIA H100 80GB HBM3
#  Rank  8 Group  0 Pid     48 on xcli-network-test-workers-0-1 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank 15 Group  0 Pid     55 on xcli-network-test-workers-0-1 device  7 [0xc4] NVIDIA H100 80GB HBM3
xcli-network-test-workers-0-0:61:61 [0] NCCL INFO NET/Socket : Using [0]eth0:10.8.0.12<0>
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
        1024            16     float    none      -1    95.37    0.01    0.01      0    95.08    0.01    0.01      0
        2048            32     float    none      -1    95.74    0.02    0.02      0    95.45    0.02    0.02      0
        4096            64     float    none      -1    96.48    0.04    0.04      0    96.19    0.04    0.04      0
        8192           128     float    none      -1    97.95    0.08    0.08      0    97.66    0.08    0.08      0
       16384           256     float    none      -1   100.91    0.16    0.15      0   100.60    0.16    0.15      0
       32768           512     float    none      -1   106.82    0.31    0.29      0   106.49    0.31    0.29      0
       65536          1024     float    none      -1   118.63    0.55    0.52      0   118.27    0.55    0.52      0
      131072          2048     float    none      -1   142.26    0.92    0.86      0   141.83    0.92    0.87      0
      262144          4096     float    none      -1   189.52    1.38    1.30      0   188.95    1.39    1.30      0
      524288          8192     float    none      -1   284.05    1.85    1.73      0   283.19    1.85    1.74      0
     1048576         16384     float    none      -1   473.09    2.22    2.08      0   471.67    2.22    2.08      0
     2097152         32768     float    none      -1   851.18    2.46    2.31      0   848.63    2.47    2.32      0
     4194304         65536     float    none      -1  1607.37    2.61    2.45      0  1602.55    2.62    2.45      0
     8388608        131072     float    none      -1  3119.74    2.69    2.52      0  3110.38    2.70    2.53      0
    16777216        262144     float    none      -1  6144.48    2.73    2.56      0  6126.04    2.74    2.57      0
    33554432        524288     float    none      -1    12194    2.75    2.58      0    12157    2.76    2.59      0
    67108864       1048576     float    none      -1    24293    2.76    2.59      0    24220    2.77    2.60      0
   134217728       2097152     float    none      -1    48491    2.77    2.59      0    48345    2.78    2.60      0
   268435456       4194304     float    none      -1    96887    2.77    2.60      0    96596    2.78    2.61      0
   536870912       8388608     float    none      -1   193678    2.77    2.60      0   193097    2.78    2.61      0
  1073741824      16777216     float    none      -1   387262    2.77    2.60      0   386100    2.78    2.61      0
  2147483648      33554432     float    none      -1   774428    2.77    2.60      0   772105    2.78    2.61      0
  4294967296      67108864     float    none      -1  1548761    2.77    2.60      0  1544115    2.78    2.61      0
  8589934592     134217728     float    none      -1  3097427    2.77    2.60      0  3088135    2.78    2.61      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 1.6812 
#
"""

WRONG_VALUES = """\
# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid     61 on xcli-network-test-workers-0-0 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid     62 on xcli-network-test-workers-0-0 device  1 [0x05] NVIDIA H100 80GB HBM3
#  Rank  8 Group  0 Pid     48 on xcli-network-test-workers-0-1 device  0 [0x04] NVIDIA H100 80GB HBM3
#  Rank 15 Group  0 Pid     55 on xcli-network-test-workers-0-1 device  7 [0xc4] NVIDIA H100 80GB HBM3
xcli-network-test-workers-0-0:61:61 [0] NCCL INFO NET/GPUDirectTCPX ver. 3.1.9.
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
        1024            16     float    none      -1    40.01    0.03    0.02      0    39.89    0.03    0.02      0
        2048            32     float    none      -1    40.03    0.05    0.05      0    39.91    0.05    0.05      0
        4096            64     float    none      -1    40.05    0.10    0.10      0    39.93    0.10    0.10      0
        8192           128     float    none      -1    40.11    0.20    0.19      0    39.99    0.20    0.19      0
       16384           256     float    none      -1    40.21    0.41    0.38      0    40.09    0.41    0.38      0
       32768           512     float    none      -1    40.43    0.81    0.76      0    40.31    0.81    0.76      0
       65536          1024     float    none      -1    40.85    1.60    1.50      0    40.73    1.61    1.51      0
      131072          2048     float    none      -1    41.71    3.14    2.95      0    41.58    3.15    2.96      0
      262144          4096     float    none      -1    43.41    6.04    5.66      0    43.28    6.06    5.68      0
      524288          8192     float    none      -1    46.83   11.20   10.50      0    46.69   11.23   10.53      0
     1048576         16384     float    none      -1    53.65   19.54   18.32      3    53.49   19.60   18.38      0
     2097152         32768     float    none      -1    67.31   31.16   29.21      0    67.10   31.25   29.30      0
     4194304         65536     float    none      -1    94.61   44.33   41.56      0    94.33   44.46   41.69      0
     8388608        131072     float    none      -1   149.23   56.21   52.70      0   148.78   56.38   52.86      0
    16777216        262144     float    none      -1   258.45   64.91   60.86      0   257.68   65.11   61.04      0
    33554432        524288     float    none      -1   476.91   70.36   65.96      0   475.48   70.57   66.16      0
    67108864       1048576     float    none      -1   913.81   73.44   68.85      0   911.07   73.66   69.06      0
   134217728       2097152     float    none      -1  1787.63   75.08   70.39      0  1782.26   75.31   70.60      0
   268435456       4194304     float    none      -1  3535.25   75.93   71.19      0  3524.65   76.16   71.40      0
   536870912       8388608     float    none      -1  7030.51   76.36   71.59      0  7009.42   76.59   71.81      0
  1073741824      16777216     float    none      -1    14021   76.58   71.79      0    13979   76.81   72.01      0
  2147483648      33554432     float    none      -1    28002   76.69   71.90      0    27918   76.92   72.11      0
  4294967296      67108864     float    none      -1    55964   76.75   71.95      0    55796   76.98   72.17      0
  8589934592     134217728     float    none      -1   111888   76.77   71.97      0   111552   77.00   72.19      0
# Out of bounds values : 3 FAILED
# Avg bus bandwidth    : 35.9023 
#
"""
