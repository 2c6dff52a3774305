from econ.cli import main

raise SystemExit(main())
