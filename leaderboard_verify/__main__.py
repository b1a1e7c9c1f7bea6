import sys

try:
    from .cli import main
except ImportError as missing:  # installed without the wheel's verify extra: say what to install, not a traceback
    print(f'leaderboard_verify needs {missing.name}: pip install "cdk-leaderboard[verify]"', file=sys.stderr)
    sys.exit(2)

sys.exit(main())
