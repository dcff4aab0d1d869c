console.log('setup placeholder')
