from __future__ import annotations

from xcli.cli.main import main

if __name__ == "__main__":
    main()
