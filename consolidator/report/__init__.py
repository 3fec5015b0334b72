"""What a pass tells a person or a program: the JSON report, the Markdown report, metrics,
terminal progress.
"""
