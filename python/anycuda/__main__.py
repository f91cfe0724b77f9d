"""``python -m anycuda ARGS``: the anycuda command, with ``run`` running this Python.

    python -m anycuda run app.py [ARGS]        == anycuda run -- python app.py [ARGS]
    python -m anycuda run --backend hip -m pkg == anycuda run --backend hip -- python -m pkg
    python -m anycuda info | libdir | demo ... == anycuda info | libdir | demo ...
"""

import sys

from anycuda import main

if __name__ == "__main__":
    sys.exit(main())
