from .cli import main

if __name__ == "__main__":  # spawn-based process pools import __main__ in every worker
    raise SystemExit(main())
