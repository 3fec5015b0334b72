"""Two memories that state different values for one thing: candidate lines by skeleton, judged
in their subject.
"""
