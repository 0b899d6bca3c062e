import sys

from repbook.runner.cli import main

sys.exit(main())
