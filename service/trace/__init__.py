"""``symguard trace DIR``: PyTorch's structured trace log (``TORCH_TRACE=DIR``) in, a report out.

``log`` reads the log files into one ``Compile`` per compiled frame and recompile (pure parsing);
``problem`` turns the shape guards Dynamo emitted for one compile into a symguard problem
(docs/problem-format.md §1); ``analyze`` asks ``redundancy`` and gathers the report's JSON;
``html`` renders that JSON as one static, offline page (inline CSS and SVG, no script).
"""
