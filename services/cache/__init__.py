"""What syncdesk keeps between runs that git does not: results kept by commit."""
