TWINS = []
