"""SSH: both engines (asyncssh, OpenSSH multiplexed), the window scheduler, output, keys."""
